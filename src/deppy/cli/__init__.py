"""Command-line front door: thin wrappers that parse arguments and render answers.

``main`` is the entry point (quick answers without click, else the ``group``); each
``*_command`` module registers one subcommand and is imported only when that command runs.
May import everything below the front doors. Of the other front doors, only the commands that
start them reach in: ``serve_command`` (``service.app``, ``service.config``) and the controller's
``controller_command``, ``manifests_command`` and ``approve_command`` (pyproject.toml lists
these exceptions to the layers).
"""
