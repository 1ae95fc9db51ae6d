"""The browser front end's files: the page assembler (:mod:`cli.web.page`), the static scripts
and styles it inlines (``cli/web/static/``), and the builders of the self-contained pages
(a replay, the record)."""
