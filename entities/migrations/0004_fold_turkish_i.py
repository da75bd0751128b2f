"""Recompute the normalised names of rows spelled with the Turkish İ or ı.

``kgsite.text.normalize`` now folds İ and ı to i (issue 16). Only rows holding one of
them change. Where two rows now fold to the same name and type (an "İZMIR" and an
"Izmir" stored before), the later one keeps its old normalised form, so nothing is lost
or merged behind a curator's back, and the clash is printed for a curator to merge.
"""

import unicodedata
import re

from django.db import IntegrityError, migrations, transaction

TURKISH_I = str.maketrans({"\u0130": "I", "\u0131": "i"})
_WS = re.compile(r"\s+")


def _normalize(text: str) -> str:
    # A frozen copy of kgsite.text.normalize as of this migration.
    folded = unicodedata.normalize("NFC", text).translate(TURKISH_I).casefold()
    return _WS.sub(" ", unicodedata.normalize("NFC", folded)).strip()


def _turkish(field: str):
    from django.db.models import Q

    return Q(**{f"{field}__contains": "\u0130"}) | Q(**{f"{field}__contains": "\u0131"})


def _recompute(model, source: str, target: str, label: str) -> None:
    for row in model.objects.filter(_turkish(source)).iterator():
        norm = _normalize(getattr(row, source))
        if norm == getattr(row, target):
            continue
        try:
            with transaction.atomic():
                model.objects.filter(pk=row.pk).update(**{target: norm})
        except IntegrityError:
            print(f"\n  {label} {row.pk} ({getattr(row, source)!r}) now names the same as "
                  "another; kept apart for a curator to merge")


def forwards(apps, schema_editor):
    _recompute(apps.get_model("entities", "Entity"), "canonical_name", "name_norm", "entity")
    _recompute(apps.get_model("entities", "Alias"), "alias", "alias_norm", "alias")
    _recompute(apps.get_model("entities", "Fact"), "text", "text_norm", "fact")


class Migration(migrations.Migration):
    atomic = False  # each row in its own savepoint: a clash skips one row, not the rest

    dependencies = [("entities", "0003_norm_length_fact_text_head")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
