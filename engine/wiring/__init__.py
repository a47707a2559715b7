"""The composition root: what a face needs to make a Context, built from the settings its
process or its request carries. settings.py is the one place the environment is read;
store.py opens the Neo4j store (the only code below the faces that picks an adapter for
the store); context.py puts them together for a call."""
