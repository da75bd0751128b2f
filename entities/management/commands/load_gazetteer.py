from __future__ import annotations

import csv
import io
from collections import OrderedDict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from entities.names import normalize_type, validate_name
from entities.services import gazetteer_load
from kgsite.errors import DomainError
from kgsite.text import normalize
from kgsite.vectors.service import vector_batch

Groups = OrderedDict[tuple[str, str], list[str]]


class Command(BaseCommand):
    help = "Load surface_form<TAB>canonical_id<TAB>entity_type rows as entities and aliases."

    def add_arguments(self, parser):
        parser.add_argument("path")

    def handle(self, *args, path: str, **options):
        groups = read_gazetteer(Path(path))
        if not groups:  # an empty export or the wrong file: never a silent "0 created"
            raise CommandError(
                f"{path}: no rows to load (surface_form<TAB>canonical_id<TAB>entity_type)"
            )
        try:
            # One index job for the whole file instead of one per entity.
            with vector_batch():
                stats = gazetteer_load(groups=list(groups.items()))
        except DomainError as exc:
            raise CommandError(f"{path}: {exc.message}") from None
        self.stdout.write(
            f"{stats['entities_created']} entities created, {stats['aliases_created']} aliases "
            f"created, {stats['unchanged']} rows already present"
        )


def _read_text(file: Path) -> str:
    """The file as UTF-8 text, or one CommandError line saying why not."""
    if file.is_dir():
        raise CommandError(f"{file} is a directory, not a TSV file")
    if not file.exists():
        raise CommandError(f"no such file: {file}")
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {file}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        offset = exc.start + (3 if raw.startswith(b"\xef\xbb\xbf") else 0)
        line = raw.count(b"\n", 0, offset) + 1
        raise CommandError(
            f"{file}:{line}: not UTF-8 text (byte 0x{raw[offset]:02x}); save it as UTF-8"
        ) from None
    return text


def read_gazetteer(file: Path) -> Groups:
    """Parse and check the whole file before anything is written; every problem is one
    CommandError line naming the file (and the line, when a row is at fault)."""
    text = _read_text(file)
    groups: Groups = OrderedDict()
    seen: dict[tuple[str, str], tuple[int, str]] = {}  # (norm, type) -> (line, group key)
    # QUOTE_NONE: a TSV cell is taken as written (a '"' is part of the name).
    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    try:
        for row in reader:
            lineno = reader.line_num
            if not row or not "".join(row).strip() or row[0].startswith("#"):
                continue
            if lineno == 1 and row[:2] == ["surface_form", "canonical_id"]:
                continue
            where = f"{file}:{lineno}"
            if len(row) < 3:
                raise CommandError(f"{where}: expected 3 tab-separated columns, got {len(row)}")
            surface, key, entity_type = (c.strip() for c in row[:3])
            if not key:
                raise CommandError(f"{where}: canonical_id is empty")
            try:
                display = validate_name(surface, field="surface_form")
                entity_type = normalize_type(entity_type)
            except DomainError as exc:
                raise CommandError(f"{where}: {exc.message}") from None
            norm = normalize(display)
            earlier = seen.get((norm, entity_type))
            if earlier is not None and earlier[1] != key:
                raise CommandError(
                    f"{where}: '{display}' already names '{earlier[1]}' "
                    f"(line {earlier[0]}) among {entity_type or 'untyped'} entities"
                )
            seen.setdefault((norm, entity_type), (lineno, key))
            groups.setdefault((key, entity_type), []).append(display)
    except csv.Error as exc:
        raise CommandError(f"{file}:{reader.line_num}: {exc}") from None
    return groups
