"""Words of the language that a listing or a manual page writes in capitals (a column
header, a placeholder) are not names of the document, whatever the learned models say."""

from __future__ import annotations

from books.chunking import chunk_sections
from books.extraction.candidates import book_term_rows
from books.extraction.decide import rows_decide, rows_rejected
from books.extraction.termhood import term_key
from books.parsing import parse_document
from tests.extraction.test_names_and_units import chunks_of, keep_everything

# Invented text: a process lister whose output has a NAME column, and a town.
LISTER = """\
Using procls
============

Run procls to list what each process holds open. Each line ends with the name of the
file, and the name is the path as the kernel reports it:

    COMMAND   PID  USER   NAME
    tallyd    812  root   /var/log/tallyd.log
    tallyd    812  root   /dev/null

Reading the NAME column
-----------------------

The NAME column shows a socket as its address. When the name is too long, procls cuts
it. Tallyd writes its journal in London and its replica in London too; procls
shows both under NAME.

Options
-------

Give procls the name of a process to show only that process.
"""


def test_a_column_header_that_is_a_common_word_is_not_an_entity():
    rows = book_term_rows(chunks_of(LISTER))
    found = {term_key(d.display) for d in rows_decide(rows, keep_everything(rows))}
    assert "name" not in found
    assert "procls" in found  # the program stays the scorer's to keep


def test_a_capitalised_name_is_not_rejected_for_spelling_a_common_word():
    # "London", as common a word as "name", is never written in lower case: it stays a
    # name NER may propose.
    rows = book_term_rows(chunks_of(LISTER))
    rejected = rows_rejected(rows, rows_decide(rows, keep_everything(rows)), keep_everything(rows))
    assert "name" in rejected
    assert "london" not in rejected


# Invented manual page: a synopsis declaring two functions; their parameters are
# placeholders, the structure they take is a thing of the library.
GAUGE = """\
GAUGE(3)

SYNOPSIS

       #include <gauge.h>

       int gauge_read(int fd, struct gauge *gauge_p);
       int gauge_reset(int fd, struct gauge *gauge_p, int reset_mode);

DESCRIPTION

       The gauge structure holds the last reading. gauge_read() fills the gauge
       structure pointed to by gauge_p from the device open on fd. gauge_reset() clears
       it; reset_mode says how, and gauge_p must point to a gauge read before.

       A gauge keeps its readings until gauge_reset() is called on gauge_p.
"""


def test_a_parameter_of_a_synopsis_is_not_an_entity():
    rows = book_term_rows(chunks_of(GAUGE))
    found = {term_key(d.display) for d in rows_decide(rows, keep_everything(rows))}
    assert "gauge_p" not in found and "reset_mode" not in found
    assert "gauge_read()" in found or "gauge_read" in found
    assert "gauge" in found  # the structure named as a parameter's type stays


# Invented API reference: each heading declares a call; its parameters are placeholders.
METER = """\
# Meter API

## `meter.poll(sensor_id, on_reading)`

Polls the sensor named by sensor_id and calls on_reading with each value. The
sensor_id is the one Meterhub printed; on_reading gets an error first.

## `meter.stop(sensor_id)`

Stops polling sensor_id. Meterhub keeps the last value.
"""


def test_a_parameter_of_an_api_heading_is_not_an_entity():
    chunks = chunk_sections(parse_document(METER.encode(), fmt="markdown").sections, max_chars=2000)
    rows = book_term_rows(chunks)
    found = {term_key(d.display) for d in rows_decide(rows, keep_everything(rows))}
    assert "sensor_id" not in found and "on_reading" not in found
    assert "meter.poll" in found  # the call the heading declares stays


# Invented licence: its disclaimer is shouted, a run of words in capitals.
LICENCE = """\
Quillpad licence

Quillpad may be copied by anyone. Quillpad is given as is.

QUILLPAD IS PROVIDED WITHOUT WARRANTIES OF ANY KIND, AND THE AUTHORS DISCLAIM ALL
WARRANTIES OF FITNESS AND MERCHANTABILITY. IN NO EVENT SHALL THE AUTHORS BE LIABLE FOR
ANY DAMAGES, EVEN IF TOLD OF THE POSSIBILITY OF MERCHANTABILITY CLAIMS.

Quillpad reads the notes of Quillpad users.
"""


def test_a_word_only_ever_shouted_in_a_notice_is_not_an_entity():
    rows = book_term_rows(chunks_of(LICENCE))
    decisions = rows_decide(rows, keep_everything(rows))
    found = {term_key(d.display) for d in decisions}
    assert "merchantability" not in found and "warranties" not in found
    # The program's name, written in the prose too, stays a name NER may propose.
    assert "quillpad" not in rows_rejected(rows, decisions, keep_everything(rows))
