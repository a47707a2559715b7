"""Keeping a memory: supersede, challenge and defend (each with what it would change, and
supersede's undo), defeat, migrate-retractions, mark-duplicate, the editing verbs
(remove-justification, convert-to-premise, set-metadata, unset-metadata) and summarize. Each
is one write transaction with its propagation, logged with the context's actor."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from engine.errors import InvalidInput
from engine.memory import defeat as defeating
from engine.memory import dialectic, duplicates, editing
from engine.memory import supersede as superseding
from engine.memory.defeat import Defeated, Migration, Scope
from engine.memory.dialectic import Argued
from engine.memory.supersede import Superseded
from engine.model import Justification
from engine.service.context import Context
from engine.service.network import Changed


@dataclass(frozen=True)
class Replacement:
    """What replaces OLD: `new`, an existing belief; or a reword, `text` (creating `new_id`,
    default OLD-v2) with OLD's justifications unless `justifications` (() for a premise),
    OLD's dependents moved to it unless `rewire` is False."""

    new: str | None = None
    text: str | None = None
    new_id: str | None = None
    justifications: tuple[Justification, ...] | None = None
    rewire: bool | None = None


def supersede(ctx: Context, old: str, replacement: Replacement, reason: str = "", *,
              transitive: bool = False, yes: bool = False) -> Superseded:
    """OLD replaced. `transitive`: the older versions OLD supersedes are gated by NEW too,
    and what rests on them moves to NEW where NEW can carry it; the what-if first (nothing
    written, `written` False) unless `yes`."""
    r = replacement
    if transitive and not yes:
        return superseding.what_if_supersede(ctx.store, old, r.new, text=r.text,
                                             new_id=r.new_id, justifications=r.justifications,
                                             rewire=r.rewire, transitive=True)
    return superseding.supersede(ctx.store, old, r.new, text=r.text, new_id=r.new_id,
                                 justifications=r.justifications, rewire=r.rewire,
                                 reason=reason, transitive=transitive)


def undo_supersede(ctx: Context, old: str) -> Changed:
    """Undo the supersede of OLD exactly."""
    return Changed(superseding.undo_supersede(ctx.store, old))


def what_if_supersede(ctx: Context, old: str, replacement: Replacement,
                      transitive: bool = False) -> Superseded:
    """What superseding OLD would change; nothing is written."""
    r = replacement
    return superseding.what_if_supersede(ctx.store, old, r.new, text=r.text, new_id=r.new_id,
                                         justifications=r.justifications, rewire=r.rewire,
                                         transitive=transitive)


def challenge(ctx: Context, target: str, reason: str, justification: int | None = None,
              challenge_id: str | None = None) -> Argued:
    """A premise challenge:<id> in the outlist of the target's justifications (or of one)."""
    return dialectic.challenge(ctx.store, target, reason, justification, challenge_id)


def defend(ctx: Context, challenged: str, reason: str) -> Argued:
    """A premise defence:<id> that gates a challenge or a defeater."""
    return dialectic.defend(ctx.store, challenged, reason)


def what_if_challenge(ctx: Context, target: str, reason: str,
                      justification: int | None = None) -> Argued:
    """What challenging the target would change (a transaction rolled back)."""
    text = dialectic.check_challenge(target, reason, justification)
    return ctx.store.dry_run(
        lambda tx: dialectic.challenge_in(tx, target, text, justification))


def what_if_defend(ctx: Context, challenged: str, reason: str) -> Argued:
    """What defending against a challenge or defeater would change (rolled back)."""
    text = dialectic.reason_text(reason)
    return ctx.store.dry_run(lambda tx: dialectic.defend_in(tx, challenged, text))


def scopes(given: Sequence[str] = (), findings: object = None, target: str = ""
           ) -> tuple[list[Scope], str]:
    """`ANTECEDENT=TEXT` scopes, and those of a scope file's findings (JSON, as ftl-reasons'
    defeat-with-scope reads it) with the file's default reason (its reason type:
    `reason_type_of`)."""
    found = []
    for text in given:
        antecedent, sep, what = text.partition("=")
        if not sep or not antecedent.strip() or not what.strip():
            raise InvalidInput(f"--scope takes ANTECEDENT=TEXT, not {text!r}", field="scope",
                               value=text)
        found.append(Scope(antecedent.strip(), what.strip()))
    if findings is None:
        return found, ""
    more, reason = defeating.scopes_from_findings(findings, target)
    return found + more, reason


def reason_type_of(findings: object) -> str:
    """The reason type a scope file names ("" none)."""
    return defeating.reason_type_of(findings)


def defeat(ctx: Context, target: str, justification: int, defeater_type: str, reason: str,
           defeater_id: str | None = None, scoped: Sequence[Scope] = (),
           reason_type: str = "") -> Defeated:
    """A typed defeater in one justification's outlist; `reason_type`, what logically fails
    in it (kept in the defeater's metadata and shown)."""
    return defeating.defeat(ctx.store, target, justification, defeater_type, reason,
                            defeater_id, list(scoped), reason_type)


def scope_file(path: str | None) -> object:
    """The findings of a scope file (JSON, as ftl-reasons' defeat-with-scope reads it), or
    None without one."""
    if not path:
        return None
    import json

    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror}", field="scope_file") from None
    except json.JSONDecodeError as e:
        raise InvalidInput(f"{path} is not JSON: {e.msg} (line {e.lineno})",
                           field="scope_file") from None


def migrate_retractions(ctx: Context, ids: Sequence[str] = (), *, dry_run: bool = False
                        ) -> Migration:
    """Retractions kept only as a reason, whose support holds, become defeated
    justifications."""
    return defeating.migrate_retractions(ctx.store, ids, dry_run=dry_run)


def mark_duplicate(ctx: Context, duplicate: str, canonical: str) -> Changed:
    return Changed(duplicates.mark_duplicate(ctx.store, duplicate, canonical))


def remove_justification(ctx: Context, belief_id: str, position: int) -> Changed:
    return Changed(editing.remove_justification(ctx.store, belief_id, position))


def convert_to_premise(ctx: Context, belief_id: str) -> Changed:
    return Changed(editing.convert_to_premise(ctx.store, belief_id))


def set_metadata(ctx: Context, belief_id: str, key: str, value: object) -> Changed:
    return Changed(editing.set_metadata(ctx.store, belief_id, key, value))


def unset_metadata(ctx: Context, belief_id: str, key: str) -> Changed:
    return Changed(editing.unset_metadata(ctx.store, belief_id, key))


def summarize(ctx: Context, summary_id: str, text: str, over: Sequence[str]) -> Changed:
    """A summary belief that stands for a group (an ALL justification over it)."""
    from engine.memory.summaries import summarize as add_summary

    return Changed(add_summary(ctx.store, summary_id, text, over))
