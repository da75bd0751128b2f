"""``train_pair_model --encoders none --keep use``: the `use` head is copied into the new
file unchanged. The file names a head by its encoder's signature, and the command looked
the kept name up only among the encoders it trained, so the head was left out of the
file: the deployment with the encoder fell back to the `none` head."""

from __future__ import annotations

import io
import json
from pathlib import Path

from django.core.management import call_command

from integrity.detection.train import train
from integrity.management.commands import train_pair_model

SIGNATURE = "invented-encoder:7"


class _Encoder:
    signature = SIGNATURE


def _rows(seed: int) -> list[dict]:
    names = ["Ilse", "Marek", "Sunita", "Teodor", "Aiko", "Bram"]
    rows = []
    for i, name in enumerate(names * 3):
        year = 1950 + 7 * i + seed
        rows += [
            (f"{name} was born in {year}.", f"{name} was born in {year + 3}.", "contradiction"),
            (f"{name} keeps bees.", f"{name} keeps bees.", "duplicate"),
            (f"{name} keeps bees.", f"{name} plays the oboe in a band.", "compatible"),
        ]
    return [
        {"id": f"r{i}", "lang": "en", "existing": a, "new": b, "label": label}
        for i, (a, b, label) in enumerate(rows)
    ]


def test_a_kept_head_not_trained_again_is_copied_unchanged(tmp_path: Path, monkeypatch) -> None:
    paths = []
    for seed in range(3):
        path = tmp_path / f"s{seed}.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in _rows(seed)) + "\n")
        paths.append(path)
    out = tmp_path / "model.json"
    train(paths, {"none": None}, out=out, log=lambda line: None)
    data = json.loads(out.read_text())
    kept = dict(data["heads"]["none"], encoder=SIGNATURE, duplicate_min=0.123)
    data["heads"][SIGNATURE] = kept
    out.write_text(json.dumps(data))
    monkeypatch.setattr(train_pair_model, "cached_encoder", lambda name: _Encoder())

    call_command(
        "train_pair_model",
        *map(str, paths),
        "--encoders",
        "none",
        "--keep",
        "use",
        "--out",
        str(out),
        stdout=io.StringIO(),
    )

    written = json.loads(out.read_text())
    assert written["heads"][SIGNATURE] == kept
    assert written["kept"] == [SIGNATURE]
    assert set(written["heads"]) == {"none", SIGNATURE}
