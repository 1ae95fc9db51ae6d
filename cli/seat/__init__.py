"""The seat model: what a seat at the table sees and may do now, below both front ends.

A front end draws a model and passes it the user's keys and taps; the model decides what they
do. :mod:`.start` is the start menu; :mod:`.board` the table seen by a seat or a spectator (the
hand's cursor and selection, the question asked, the status line, the side screens as the plain
data of :mod:`p2p10.screen_view`, what each key does); :mod:`.moves` the user's moves and the
questions they ask; :mod:`.play` the seat at a table followed as it plays (the narrator, a
hand's summary held open, the title's words); :mod:`.lan` a seat at a LAN table (chat, who the
table waits for, going on without a machine). :mod:`.prompts` and :mod:`.help` hold the
questions and the fixed words.

Nothing here is laid out for a width or knows a terminal: where words have shorter forms, the
model gives every form, widest first, and the front end takes the first that fits (the
terminal, :mod:`cli.table`) or the widest (the browser, :mod:`cli.web`). Styled text is a list
of ``(style, text)`` fragments (:mod:`.styled`), the style a class name both front ends read.
"""
