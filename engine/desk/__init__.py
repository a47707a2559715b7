"""The review desk (`eem ui`): a face, as the command line and the MCP server are, that serves
the memory to a person in a local web page. Every page reads through engine/service/ and
every action is one call of it, with the person as the Context's actor.

    server.py       the command: arguments, the token printed, uvicorn on a loopback socket
    guard.py        the token on every request (401), the host, the CSRF check's parts
    app.py          the routes: each a few service calls and a template
    queue.py        every open proposal as a row: agents' and the stages' files'
    stage_files.py  the one reader of the stages' proposals files
    detail.py       a row's what-if, nearest beliefs and source lines
    decide.py       accept, reject, edit then accept: the service's verbs
    belief_page.py  a belief's page: show, explain, trace, history, arguments
    live.py         the change log followed; server-sent events to open pages
    templates/, static/   Jinja2 templates (every value escaped), one stylesheet, one script
"""
