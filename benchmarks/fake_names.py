"""Realistic names for the lookup, scale, pages and extraction benchmarks, seeded.

People are first x middle initial x last name ("Zoë K. Dvořák"), organisations two words
plus a legal suffix ("Nordlicht Systems GmbH"), places prefix x root x suffix ("San Łódź
del Río"), technologies qualifier x term x version ("Distributed Graph Engine 3"). Every
entity gets three structurally distinct aliases ("Dvořák, Zoë K.", "zoe.k.dvorak",
"Dr. Zoë K. Dvořák"). A candidate is skipped if any of its normalised names is taken.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Iterator


def _words(text: str, sep: str | None = None) -> list[str]:
    """Word lists are kept as running text: far easier to read and extend."""
    return text.split(sep)


FIRST = _words(
    "Ada Alan Amélie Anaïs Anders Andrés Aoife Arjun Astrid Aurélien Beatriz Björn Bogdan "
    "Camille Carmen Chloé Ciarán Dagny Dmitri Élodie Emeka Erik Eszter Fatima Felipe Freya "
    "Gaël Giulia Grete Gustavo Hana Håkon Hélène Ignacio Ingrid Ioana Isidora Jürgen Jana "
    "José Kai Katarzyna Kenji Lars Léa Liesel Łukasz Maëlle Malik Małgorzata Mateus Mei Mikael "
    "Milena Nadia Nicolás Niamh Noémie Olamide Oskar Paweł Petra Priya Quentin Raúl Renée "
    "Rūta Sakura Seán Siobhán Søren Stéphane Tamás Thiago Tomás Ulla Valentina Yusuf Zoë Zoltán"
)
LAST = _words(
    "Abara Álvarez Andersen Bauer Bergström Błaszczyk Brandão Castro Chen Čapek Dąbrowski "
    "Dvořák Eriksen Fernández Fischer Fontaine Gómez Grünewald Haddad Halvorsen Hernández "
    "Ibáñez Ivanova Jansen Jiménez Kaczmarek Kowalczyk Kühn Larsen Lefèvre Lindqvist López "
    "Mäkinen Martínez Moreau Müller Nakamura Navrátil Nguyen Novák Núñez O'Brien Okafor "
    "Øyen Pérez Petrović Quiñones Ramírez Rønning Rousseau Sánchez Schäfer Schmidt Sørensen "
    "Strauß Suárez Szabó Tanaka Thorsen Varga Vázquez Wagner Weiß Wiśniewski Yılmaz Zając "
    "Zimmermann Żukowski Åberg Ólafsson Þórsdóttir Ward Kelly Murphy Walsh Byrne Doyle"
)
ORG_A = _words(
    "Nordlicht Aurora Blue Cedar Crimson Delta Echo Falcon Granite Harbor Helix Iron Juniper "
    "Kestrel Lumen Meridian Nimbus Obsidian Orion Pioneer Quantum Quill Redwood Sierra "
    "Solstice Summit Tidal Umbra Vertex Willow Zenith Élan Fjord Glacier Horizon Indigo "
    "Jaguar Lotus Marigold Nova Onyx Polaris Prism Rivet Saffron Tundra Vanguard Zephyr "
    "Alpenglow Bellwether Cobalt Dune Ember Foxglove Gossamer Hearth Ibis Kiln Lantern Mistral"
)
ORG_B = _words(
    "Systems Labs Analytics Robotics Foods Logistics Textiles Energy Pharma Media Studios "
    "Ventures Capital Holdings Dynamics Networks Materials Optics Biotech Foundry Works "
    "Partners Consulting Brewing Aerospace Maritime Publishing Software Instruments Farms "
    "Mining Motors Records Telecom Water Wind Solar Academy Institute Trust"
)
ORG_SUFFIX = ("GmbH", "Ltd", "Inc.", "S.A.", "AB", "Oy", "S.p.A.", "B.V.", "K.K.", "A/S")
PLACE_PREFIX = (
    "",
    "San",
    "Santa",
    "Saint-",
    "Bad",
    "Nieder",
    "Ober",
    "Nueva",
    "Port",
    "Lake",
    "Mount",
    "Villa",
    "Alt",
    "Groß",
    "Vila",
    "Fort",
    "Kirch",
    "Nový",
    "Stary",
    "East",
)
PLACE_ROOT = _words(
    "Zürich Łódź Kraków Malmö Ærø Škofja Győr Tromsø Besançon Cádiz Gdańsk Brno Poznań "
    "Köln Linköping Jyväskylä Trondheim Valparaíso Medellín Curaçao Reykjavík Nîmes Orléans "
    "Coimbra Évora Bergamo Ghent Aarhus Oulu Tartu Kaunas Plzeň Bratislava Debrecen Sibiu "
    "Varna Ohrid Mostar Split Zadar Piran Bled Hallstatt Salzburg Innsbruck Lucerne Basel "
    "Lausanne Annecy Colmar Lyon Nantes Rennes Bordeaux Toulouse Girona Córdoba Málaga "
    "Granada Oviedo Bilbao León Porto Braga Faro Sintra Siena Lecce Parma Trento Udine "
    "Verona Mantova Cork Galway Sligo Derry Oban Whitby Bath York Durham Exeter Truro "
    "Tórshavn Ísafjörður Akureyri Kiruna Umeå Visby Ystad Lund Odense Ribe Vejle Sønderborg"
)
PLACE_SUFFIX = (
    "",
    "-sur-Mer",
    " am See",
    " del Río",
    " Heights",
    " Springs",
    "berg",
    " an der Oder",
    " do Sul",
    " Nord",
    " Süd",
    "-les-Bains",
    " de la Sierra",
    " Harbour",
    " Valley",
)
COUNTRY = ("CH", "PL", "SE", "DK", "FR", "ES", "PT", "IT", "IE", "NO", "FI", "AT", "DE", "IS")
TECH_QUAL = _words(
    "Distributed Incremental Adaptive Reactive Streaming Embedded Probabilistic Federated "
    "Declarative Lock-free Persistent Columnar Vectorised Sparse Quantum Typed Lazy "
    "Differential Homomorphic Elastic Serverless Immutable Concurrent Neural Symbolic"
)
TECH_TERM = _words(
    "Graph Engine,Query Planner,Key-Value Store,Message Queue,Type Checker,Garbage Collector,"
    "Bloom Filter,Hash Map,B-Tree,Trie,Compiler,Parser,Scheduler,Cache,Tokenizer,Indexer,"
    "Load Balancer,Service Mesh,Consensus Protocol,Ledger,Renderer,Shader Pipeline,Allocator,"
    "File System,Job Runner,Rule Engine,Search Index,Time-Series Store,Stream Processor,"
    "Feature Store,Vector Database,Theorem Prover,Model Server,Build System,Package Manager",
    sep=",",
)


def fold(text: str) -> str:
    """ASCII transliteration for the handle-style aliases ("Dvořák" -> "Dvorak")."""
    text = text.translate(str.maketrans({"ß": "ss", "Æ": "Ae", "æ": "ae", "Ø": "O", "ø": "o"}))
    text = text.translate(str.maketrans({"Ł": "L", "ł": "l", "Þ": "Th", "þ": "th", "ð": "d"}))
    text = text.translate(str.maketrans({"ı": "i"}))
    nfkd = unicodedata.normalize("NFKD", text)
    return "".join(c for c in nfkd if not unicodedata.combining(c))


def _people(rng: random.Random) -> Iterator[tuple[str, list[str]]]:
    initials = [""] + [f"{c}." for c in "ABCDEFGHJKLMNOPRSTVW"]
    combos = len(FIRST) * len(initials) * len(LAST)
    for i in rng.sample(range(combos), combos):
        first = FIRST[i % len(FIRST)]
        mid = initials[(i // len(FIRST)) % len(initials)]
        last = LAST[i // (len(FIRST) * len(initials))]
        given = f"{first} {mid}".strip()
        handle = ".".join(p.strip(".").lower() for p in (first, mid, last) if p)
        yield (
            f"{given} {last}",
            [f"{last}, {given}", re.sub(r"[^a-z.]", "", fold(handle)), f"Dr. {given} {last}"],
        )


def _organisations(rng: random.Random) -> Iterator[tuple[str, list[str]]]:
    combos = len(ORG_A) * len(ORG_A) * len(ORG_B)
    for i in rng.sample(range(combos), combos):
        a1, a2 = ORG_A[i % len(ORG_A)], ORG_A[(i // len(ORG_A)) % len(ORG_A)]
        if a1 == a2:
            continue
        b = ORG_B[i // (len(ORG_A) ** 2)]
        suffix = ORG_SUFFIX[i % len(ORG_SUFFIX)]
        short = f"{a1} {a2} {b}"
        yield (
            f"{short} {suffix}",
            [short, f"{a1[0]}{a2[0]}{b[0]} ({a1} {a2})", f"{fold(a1)}{fold(a2)}{fold(b)}"],
        )


def _places(rng: random.Random) -> Iterator[tuple[str, list[str]]]:
    combos = len(PLACE_PREFIX) * len(PLACE_ROOT) * len(PLACE_SUFFIX)
    for i in rng.sample(range(combos), combos):
        prefix = PLACE_PREFIX[i % len(PLACE_PREFIX)]
        root = PLACE_ROOT[(i // len(PLACE_PREFIX)) % len(PLACE_ROOT)]
        suffix = PLACE_SUFFIX[i // (len(PLACE_PREFIX) * len(PLACE_ROOT))]
        sep = "" if prefix.endswith("-") or not prefix else " "
        name = f"{prefix}{sep}{root}{suffix}"
        country = COUNTRY[i % len(COUNTRY)]
        yield name, [f"{name}, {country}", f"{fold(name)} ({country})", f"City of {name}"]


def _technologies(rng: random.Random) -> Iterator[tuple[str, list[str]]]:
    combos = len(TECH_QUAL) * len(TECH_QUAL) * len(TECH_TERM) * 9
    for i in rng.sample(range(combos), combos):
        q1 = TECH_QUAL[i % len(TECH_QUAL)]
        q2 = TECH_QUAL[(i // len(TECH_QUAL)) % len(TECH_QUAL)]
        if q1 == q2:
            continue
        rest = i // len(TECH_QUAL) ** 2
        term, version = TECH_TERM[rest % len(TECH_TERM)], rest // len(TECH_TERM) + 1
        name = f"{q1} {q2} {term} {version}"
        acronym = "".join(w[0] for w in f"{q1} {q2} {term}".replace("-", " ").split())
        yield (
            name,
            [
                f"{q1} {q2} {term} v{version}",
                f"{acronym}-{version} ({q2})",
                f"{term} {version} ({q1}, {q2})",
            ],
        )


# Share of entities per type (sums to 1).
GENERATORS: tuple[tuple[str, float, Callable[[random.Random], Iterator]], ...] = (
    ("person", 0.45, _people),
    ("organization", 0.2, _organisations),
    ("place", 0.15, _places),
    ("technology", 0.2, _technologies),
)


def generate(n_entities: int, rng: random.Random) -> list[tuple[str, str, list[str]]]:
    """(type, canonical name, three aliases) with every normalised name unique overall."""
    from kgsite.text import normalize

    taken: set[str] = set()
    out: list[tuple[str, str, list[str]]] = []
    for index, (type_, share, gen) in enumerate(GENERATORS):
        want = n_entities - len(out) if index == len(GENERATORS) - 1 else int(n_entities * share)
        got = 0
        for canonical, aliases in gen(rng):
            norms = [normalize(canonical), *(normalize(a) for a in aliases)]
            if len(set(norms)) != len(norms) or taken.intersection(norms):
                continue
            taken.update(norms)
            out.append((type_, canonical, aliases))
            got += 1
            if got == want:
                break
        if got < want:
            raise RuntimeError(f"name lists too small: {got} of {want} {type_} names")
    return out
