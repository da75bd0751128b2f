"""Realistic one-line memories for the search and scale benchmarks, seeded.

``generate_facts`` writes distinct sentences from ~30 templates over a fixed cast
(people, teams, technologies, companies, places, projects, foods); ``cast`` is that cast,
loaded as entities by the benchmarks so that entity resolution works as in production.
"""

from __future__ import annotations

import random

SEED = 20240601

FIRST = [
    "Alice",
    "Bruno",
    "Chen",
    "Dana",
    "Elif",
    "Farah",
    "Gustav",
    "Hana",
    "Ivan",
    "Jonas",
    "Keiko",
    "Liam",
    "Maya",
    "Nadia",
    "Omar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoe",
    "Aaron",
    "Beatriz",
    "Carlos",
    "Dmitri",
    "Emma",
    "Felix",
    "Greta",
    "Hugo",
    "Ines",
    "Jamal",
    "Kira",
    "Lucas",
    "Mei",
    "Nils",
]
LAST = [
    "Chen",
    "Novak",
    "Okafor",
    "Silva",
    "Tanaka",
    "Weber",
    "Rossi",
    "Kowalski",
    "Haddad",
    "Jensen",
    "Moreau",
    "Patel",
    "Garcia",
    "Nguyen",
    "Schmidt",
    "Larsen",
    "Ivanova",
    "Costa",
    "Yilmaz",
    "Bauer",
    "Fischer",
    "Dubois",
    "Kim",
    "Lopez",
    "Meyer",
    "Sato",
    "Berg",
    "Ahmed",
    "Varga",
    "Horvat",
]
TEAMS = [
    "billing",
    "checkout",
    "search",
    "payments",
    "identity",
    "platform",
    "data",
    "mobile",
    "growth",
    "security",
    "infrastructure",
    "support",
    "analytics",
    "marketing",
    "onboarding",
    "logistics",
    "pricing",
    "fraud",
]
TECH = [
    "PostgreSQL",
    "MySQL",
    "Redis",
    "Kafka",
    "RabbitMQ",
    "Elasticsearch",
    "Kubernetes",
    "Docker",
    "Terraform",
    "Django",
    "Flask",
    "FastAPI",
    "React",
    "Vue",
    "Svelte",
    "Rust",
    "Go",
    "Python",
    "TypeScript",
    "Java",
    "Kotlin",
    "Swift",
    "GraphQL",
    "gRPC",
    "Nginx",
    "Envoy",
    "Prometheus",
    "Grafana",
    "Airflow",
    "Spark",
    "Snowflake",
    "BigQuery",
    "ClickHouse",
    "MongoDB",
    "Cassandra",
    "SQLite",
    "Celery",
    "Sentry",
    "Jenkins",
    "GitLab",
]
COMPANIES = [
    "Acme",
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Vandelay",
    "Stark",
    "Wayne",
    "Tyrell",
    "Cyberdyne",
    "Soylent",
    "Wonka",
    "Gringotts",
    "Oscorp",
    "Nakatomi",
    "Massive",
    "Aperture",
    "Monarch",
    "Dunder",
    "Sirius",
]
PLACES = [
    "Berlin",
    "Lisbon",
    "Tokyo",
    "Nairobi",
    "Toronto",
    "Madrid",
    "Oslo",
    "Warsaw",
    "Singapore",
    "Austin",
    "Dublin",
    "Zurich",
    "Seoul",
    "Lagos",
    "Prague",
    "Helsinki",
    "Montreal",
    "Bangalore",
    "Melbourne",
    "Amsterdam",
]
PROJECTS = [
    "Atlas",
    "Beacon",
    "Cobalt",
    "Delta",
    "Ember",
    "Falcon",
    "Granite",
    "Harbor",
    "Iris",
    "Juniper",
    "Kestrel",
    "Lumen",
    "Mosaic",
    "Nimbus",
    "Orion",
    "Pioneer",
    "Quartz",
    "Raven",
    "Summit",
    "Tundra",
]
FOODS = ["peanuts", "shellfish", "gluten", "lactose", "sesame", "strawberries"]
ROLES = [
    "engineer",
    "designer",
    "manager",
    "analyst",
    "architect",
    "recruiter",
    "researcher",
    "director",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
REASONS = [
    "latency",
    "cost",
    "licensing",
    "reliability",
    "security",
    "compliance",
    "scaling",
    "maintenance",
]
COMPONENTS = ["replica", "cache", "queue", "cluster", "proxy", "scheduler", "index", "gateway"]
TASKS = [
    "prototyping",
    "data",
    "pipelines",
    "web",
    "backends",
    "batch",
    "jobs",
    "dashboards",
    "mobile",
    "apps",
]

TEMPLATES = [
    "{person} moved the {tech} database for the {team} team to {place} in {month} {year}.",
    "The {team} team replaced {tech} with {tech2} because of {reason}.",
    "{person} leads the {project} project at {company}.",
    "{project} ships its first release on {month} {day}, {year}.",
    "{person} prefers {tech} over {tech2} for {task}.",
    "{person} is allergic to {food}.",
    "The {project} outage on {month} {day} was caused by a misconfigured {tech} {component}.",
    "{person} joined {company} as a {role} in {year}.",
    "{company} opened an office in {place} with {n} employees.",
    "{company} signed a {small}-year contract with {company2} for {tech} support.",
    "The {team} team runs {tech} version {major}.{minor} in production.",
    "{person} wrote the runbook for restarting the {tech} {component}.",
    "{person} reports to {person2} on the {team} team.",
    "{person} is on call for {project} during the week of {month} {day}.",
    "The {tech} {component} in {place} handles about {n} requests per second.",
    "{company} acquired {company2} in {year} for {n} million dollars.",
    "{person} gave a talk about {tech} at the {place} meetup in {month}.",
    "{project} stores user sessions in {tech} with a {small}-hour expiry.",
    "{person} moved from {place} to {place2} in {year}.",
    "The {team} team migrated {project} from {tech} to {tech2} in {month} {year}.",
    "{person}'s birthday is on {month} {day}.",
    "{company} uses {tech} for its {team} platform.",
    "{person} approved the budget for {project} in {month}.",
    "The {tech} upgrade for {project} is blocked by a {reason} review.",
    "{person} and {person2} pair on the {tech} rewrite of {project}.",
    "Backups of the {project} {tech} {component} run every {small} hours.",
    "{company}'s headquarters are in {place}.",
    "{person} mentors new {role}s on the {team} team.",
    "{project} was renamed to {project2} in {year}.",
    "{person} dislikes meetings before {small} o'clock.",
]


def _people(rng: random.Random) -> list[str]:
    pairs = [(f, last) for f in FIRST for last in LAST]
    rng.shuffle(pairs)
    return [f"{f} {last}" for f, last in pairs[:400]]


def cast() -> dict[str, list[str]]:
    rng = random.Random(SEED)
    return {
        "person": _people(rng),
        "team": TEAMS,
        "technology": TECH,
        "company": COMPANIES,
        "place": PLACES,
        "project": PROJECTS,
        "food": FOODS,
    }


def generate_facts(n: int) -> list[tuple[str, list[tuple[str, str]]]]:
    """``n`` distinct sentences, each with the (name, type) entities it names.

    Deterministic: the first 10,000 of ``generate_facts(100_000)`` are
    ``generate_facts(10_000)``.
    """
    rng = random.Random(SEED)
    people = cast()["person"]
    seen: set[str] = set()
    out: list[tuple[str, list[tuple[str, str]]]] = []
    while len(out) < n:
        template = rng.choice(TEMPLATES)
        person, person2 = rng.sample(people, 2)
        tech, tech2 = rng.sample(TECH, 2)
        company, company2 = rng.sample(COMPANIES, 2)
        place, place2 = rng.sample(PLACES, 2)
        project, project2 = rng.sample(PROJECTS, 2)
        values = {
            "person": person, "person2": person2, "tech": tech, "tech2": tech2,
            "company": company, "company2": company2, "place": place, "place2": place2,
            "project": project, "project2": project2, "team": rng.choice(TEAMS),
            "food": rng.choice(FOODS), "role": rng.choice(ROLES),
            "month": rng.choice(MONTHS), "day": rng.randint(1, 28),
            "year": rng.randint(2015, 2025), "n": rng.randint(10, 5000),
            "small": rng.randint(2, 12), "major": rng.randint(1, 17),
            "minor": rng.randint(0, 9), "reason": rng.choice(REASONS),
            "component": rng.choice(COMPONENTS), "task": rng.choice(TASKS),
        }  # fmt: skip
        text = template.format(**values)
        if text in seen:
            continue
        seen.add(text)
        named = [
            (values[slot], kind)
            for slot, kind in (
                ("person", "person"), ("person2", "person"), ("tech", "technology"),
                ("tech2", "technology"), ("company", "company"), ("company2", "company"),
                ("place", "place"), ("place2", "place"), ("project", "project"),
                ("project2", "project"),
            )
            if "{" + slot + "}" in template
        ]  # fmt: skip
        out.append((text, named))
    return out
