"""Recall endpoints: the six triggers an agent calls without being asked, and episodes.

A recall is a read sent as a POST (its input is a text): open like every search. Logging
a finding (``log: true``) and recording an episode are writes and need a curator.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from kgsite.api import Reader
from kgsite.converters import MAX_ID
from kgsite.errors import InvalidInput, NotFound
from kgsite.pages import is_curator
from kgsite.schema import ErrorResponseSerializer, bad_request

from .. import selectors as entity_selectors
from ..graph import selectors as graph_selectors
from ..models import Entity, Fact
from ..scopes import ScopeFilter, key_clean
from ..serializers import (
    ALL_SCOPES_HELP,
    MAX_FACT_ENTITIES,
    SCOPE_HELP,
    FactSerializer,
    StrictSerializer,
)
from . import selectors, services
from .options import BOUNDS, INTEGERS, RecallOptions

# --- Requests -----------------------------------------------------------------------------


def _option_field(name: str) -> serializers.Field:
    setting, low, high = BOUNDS[name]
    help_text = f"Override {setting} for this request ({low} to {high})."
    if name in INTEGERS:
        return serializers.IntegerField(
            required=False, min_value=int(low), max_value=int(high), help_text=help_text
        )
    return serializers.FloatField(
        required=False, min_value=low, max_value=high, help_text=help_text
    )


class RecallRequestSerializer(StrictSerializer):
    scope = serializers.CharField(
        required=False, allow_blank=True, max_length=128, default="", help_text=SCOPE_HELP
    )
    all_scopes = serializers.BooleanField(required=False, default=False, help_text=ALL_SCOPES_HELP)
    ai_id = serializers.CharField(
        required=False, allow_blank=True, max_length=128, help_text="Only this agent's memory."
    )
    budget_chars = _option_field("budget_chars")
    similarity = _option_field("similarity")
    unknown_similarity = _option_field("unknown_similarity")
    relevance = _option_field("relevance")
    min_confidence = _option_field("min_confidence")
    max_facts = _option_field("max_facts")
    max_episodes = _option_field("max_episodes")
    recent_sessions = _option_field("recent_sessions")

    def scopes(self) -> ScopeFilter:
        return ScopeFilter.of(self.validated_data["scope"], self.validated_data["all_scopes"])

    def options(self) -> RecallOptions:
        names = [*BOUNDS, "ai_id"]
        return RecallOptions.of(
            {n: self.validated_data[n] for n in names if n in self.validated_data}
        )


class SessionStartRequestSerializer(RecallRequestSerializer):
    session_id = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=128,
        default="",
        help_text="The session starting now: its own episodes are not past work.",
    )


class PreCheckRequestSerializer(RecallRequestSerializer):
    action = serializers.CharField(max_length=10_000, help_text="What the agent is about to do.")


class UnknownRequestSerializer(RecallRequestSerializer):
    text = serializers.CharField(max_length=10_000, help_text="The unknown about to be logged.")


class FindingRequestSerializer(StrictSerializer):
    text = serializers.CharField(max_length=10_000, help_text="The finding about to be logged.")
    scope = serializers.CharField(
        required=False, allow_blank=True, max_length=128, default="", help_text=SCOPE_HELP
    )
    kind = serializers.ChoiceField(choices=Fact.Kind.choices, required=False, default="fact")
    log = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Store it (curators): confirm the existing fact, raising its confidence, "
        "or create a new one.",
    )
    confidence = serializers.FloatField(required=False, default=1.0, min_value=0, max_value=1)
    source = serializers.CharField(required=False, allow_blank=True, default="", max_length=255)
    ai_id = serializers.CharField(required=False, allow_blank=True, default="", max_length=128)
    session_id = serializers.CharField(required=False, allow_blank=True, default="", max_length=128)
    resolved_by = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=10_000,
        help_text="With kind resolved_unknown and log: how the unknown was resolved (needed).",
    )
    domain = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=Fact._meta.get_field("domain").max_length,
        help_text="With kind pattern and log: its domain (auth, db, ...), as the domain "
        "trigger finds patterns by it.",
    )


class DomainRequestSerializer(RecallRequestSerializer):
    tool = serializers.CharField(max_length=512, help_text="The tool about to be called.")
    arguments = serializers.DictField(
        required=False, default=dict, help_text="Its arguments (keys and string values count)."
    )


class QueryRequestSerializer(RecallRequestSerializer):
    query = serializers.CharField(max_length=10_000, help_text="What the agent wants to recall.")


# An episode is one piece of work: it is about a handful of entities and facts, as a
# fact names at most MAX_FACT_ENTITIES; thousands of ids are refused unread.
MAX_EPISODE_LINKS = MAX_FACT_ENTITIES


class EpisodeWriteSerializer(StrictSerializer):
    narrative = serializers.CharField(max_length=services.MAX_NARRATIVE)
    scope = serializers.CharField(required=False, allow_blank=True, default="", max_length=128)
    session_id = serializers.CharField(required=False, allow_blank=True, default="", max_length=128)
    ai_id = serializers.CharField(required=False, allow_blank=True, default="", max_length=128)
    entities = serializers.ListField(
        child=serializers.CharField(max_length=255),
        required=False,
        default=list,
        max_length=MAX_EPISODE_LINKS,
        help_text="Entities the work was about: ids, canonical names, aliases or imported "
        f"ids, as MCP episode_store takes them (at most {MAX_EPISODE_LINKS}). A name no "
        "entity has is a 400 naming entities.N; a name of several types a 409 with "
        "candidates.",
    )
    facts = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        default=list,
        max_length=MAX_EPISODE_LINKS,
        help_text=f"Fact ids the work was about (at most {MAX_EPISODE_LINKS}).",
    )


# --- Responses ----------------------------------------------------------------------------


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string"}]})
class IdField(serializers.Field):
    """A number for facts, episodes and chunks; a string for entities (their own ids)."""

    def to_representation(self, value):
        return value


class RecallItemSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["fact", "episode", "entity", "chunk", "notification"])
    id = IdField(help_text="Fact, episode or chunk id (a number) or entity id (a string).")
    text = serializers.CharField()
    score = serializers.FloatField(allow_null=True, required=False)
    kind = serializers.CharField(required=False)
    confidence = serializers.FloatField(required=False)
    confirmations = serializers.IntegerField(required=False, help_text="A fact's.")
    scope = serializers.CharField(required=False)
    resolved_by = serializers.CharField(required=False, help_text="A resolved unknown's answer.")
    domain = serializers.CharField(required=False, help_text="A pattern's domain.")
    goal_status = serializers.CharField(required=False, help_text="A goal's status.")
    session_id = serializers.CharField(required=False, help_text="An episode's session.")
    ai_id = serializers.CharField(required=False, help_text="An episode's agent.")
    created_at = serializers.DateTimeField(required=False, help_text="When an episode was.")
    facts = serializers.IntegerField(
        required=False, help_text="An entity's: how many active facts the reader sees name it."
    )
    link = serializers.CharField(required=False, help_text="A notification's page.")
    surfaced_because = serializers.CharField(help_text="Why this item is in the answer.")


class BudgetSerializer(serializers.Serializer):
    limit_chars = serializers.IntegerField()
    used_chars = serializers.IntegerField()
    omitted = serializers.IntegerField(help_text="Items left out to keep within the budget.")


class GoalRecallSerializer(serializers.Serializer):
    goal = RecallItemSerializer()
    facts = RecallItemSerializer(many=True)
    episodes = RecallItemSerializer(many=True)


class SessionStartResponseSerializer(serializers.Serializer):
    scope = serializers.CharField()
    session_id = serializers.CharField()
    goals = GoalRecallSerializer(many=True)
    notifications = RecallItemSerializer(many=True)
    context = serializers.CharField(help_text="Markdown (## Memory Context) to inject.")
    budget = BudgetSerializer()
    options = serializers.DictField()
    took_ms = serializers.FloatField()


class PreCheckResponseSerializer(serializers.Serializer):
    action = serializers.CharField()
    similar = RecallItemSerializer(many=True)
    mistakes = RecallItemSerializer(many=True)
    dead_ends = RecallItemSerializer(many=True)
    warnings = serializers.ListField(child=serializers.CharField())
    budget = BudgetSerializer()
    options = serializers.DictField()
    took_ms = serializers.FloatField()


class AlreadyResolvedSerializer(serializers.Serializer):
    fact_id = serializers.IntegerField()
    original_unknown = serializers.CharField()
    resolution = serializers.CharField()
    confidence = serializers.FloatField()
    similarity = serializers.FloatField()


class UnknownResponseSerializer(serializers.Serializer):
    text = serializers.CharField()
    already_resolved = AlreadyResolvedSerializer(allow_null=True)
    items = RecallItemSerializer(many=True)
    budget = BudgetSerializer()
    options = serializers.DictField()
    took_ms = serializers.FloatField()


class ExistingFactSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    confidence = serializers.FloatField()
    confirmations = serializers.IntegerField()
    scope = serializers.CharField(
        help_text="Its project (empty: global memory). Only a fact of the finding's own "
        "scope is confirmed by log; another is shown, with action create_new."
    )


class FindingResponseSerializer(serializers.Serializer):
    action = serializers.CharField(
        help_text="boost_confidence (a fact of the finding's own scope says it: log "
        "confirms it) or create_new (log stores a new fact; existing_fact may still name "
        "global memory that says it, which a project's finding never changes)."
    )
    existing_fact = ExistingFactSerializer(allow_null=True)
    items = RecallItemSerializer(many=True)
    logged = serializers.CharField(
        allow_null=True, help_text="With log: created or confirmed; null without log."
    )
    fact = FactSerializer(allow_null=True, help_text="With log: the stored fact.")
    took_ms = serializers.FloatField()


class DomainResponseSerializer(serializers.Serializer):
    domains = serializers.ListField(child=serializers.CharField())
    patterns = RecallItemSerializer(many=True)
    budget = BudgetSerializer()
    options = serializers.DictField()
    took_ms = serializers.FloatField()


class QueryResponseSerializer(serializers.Serializer):
    query = serializers.CharField()
    items = RecallItemSerializer(many=True)
    sources = serializers.ListField(child=serializers.CharField())
    budget = BudgetSerializer()
    options = serializers.DictField()
    took_ms = serializers.FloatField()


class EpisodeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    narrative = serializers.CharField()
    scope = serializers.CharField()
    session_id = serializers.CharField()
    ai_id = serializers.CharField()
    created_at = serializers.DateTimeField()


# --- Views --------------------------------------------------------------------------------


def _request(serializer_class, data) -> RecallRequestSerializer:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer


class RecallView(GenericAPIView):
    """A recall is a read: open to readers (anyone with ``KGSITE_PUBLIC_READ``), like
    every search, and throttled like one."""

    permission_classes = [Reader]
    throttle_scope = "search"
    pagination_class = None


class SessionStartView(RecallView):
    serializer_class = SessionStartRequestSerializer

    @extend_schema(
        operation_id="recall_session_start",
        request=SessionStartRequestSerializer,
        responses={200: SessionStartResponseSerializer, 400: bad_request("scope", "...")},
        summary="At session start: active goals with relevant facts and past work, "
        "pending HIGH notices, and Markdown to inject",
    )
    def post(self, request):
        r = _request(SessionStartRequestSerializer, request.data)
        return Response(
            selectors.recall_session_start(
                scopes=r.scopes(), session_id=r.validated_data["session_id"], options=r.options()
            )
        )


class PreCheckView(RecallView):
    serializer_class = PreCheckRequestSerializer

    @extend_schema(
        operation_id="recall_pre_check",
        request=PreCheckRequestSerializer,
        responses={200: PreCheckResponseSerializer, 400: bad_request("action", "...")},
        summary="Before a decision: similar decisions, mistakes and dead ends, with warnings",
    )
    def post(self, request):
        r = _request(PreCheckRequestSerializer, request.data)
        return Response(
            selectors.recall_pre_check(
                action=r.validated_data["action"], scopes=r.scopes(), options=r.options()
            )
        )


class UnknownView(RecallView):
    serializer_class = UnknownRequestSerializer

    @extend_schema(
        operation_id="recall_unknown",
        request=UnknownRequestSerializer,
        responses={200: UnknownResponseSerializer, 400: bad_request("text", "...")},
        summary="Before logging an unknown: was it already resolved?",
    )
    def post(self, request):
        r = _request(UnknownRequestSerializer, request.data)
        return Response(
            selectors.recall_unknown(
                text=r.validated_data["text"], scopes=r.scopes(), options=r.options()
            )
        )


class FindingView(RecallView):
    serializer_class = FindingRequestSerializer

    @extend_schema(
        operation_id="recall_finding",
        request=FindingRequestSerializer,
        responses={200: FindingResponseSerializer, 400: bad_request("text", "...")},
        summary="Before logging a finding: does it exist already (then confirm it)?",
    )
    def post(self, request):
        r = _request(FindingRequestSerializer, request.data)
        data = r.validated_data
        if data["log"] and not is_curator(request.user):
            # DRF's own denial: 401 to a caller without credentials, 403 to a reader.
            self.permission_denied(
                request, message="logging a finding needs an authenticated curator"
            )
        scope = ScopeFilter.of(data["scope"]).scope
        for key in ("ai_id", "session_id"):  # refused as a logged one is, with or without log
            key_clean(data[key], field=key)
        services.finding_fields_check(
            kind=data["kind"], resolved_by=data["resolved_by"], domain=data["domain"]
        )
        result = selectors.recall_finding(text=data["text"], scope=scope, kind=data["kind"])
        result.update({"logged": None, "fact": None})
        if data["log"]:
            stored = services.recall_finding_log(
                text=data["text"],
                scope=scope,
                kind=data["kind"],
                fields={
                    k: data[k]
                    for k in (
                        "confidence",
                        "source",
                        "ai_id",
                        "session_id",
                        "resolved_by",
                        "domain",
                    )
                },
                actor=request.user,
            )
            fact = entity_selectors.fact_get(fact_id=stored.fact.pk)
            result.update({"logged": stored.action, "fact": FactSerializer(fact).data})
        return Response(result)


class DomainView(RecallView):
    serializer_class = DomainRequestSerializer

    @extend_schema(
        operation_id="recall_domain",
        request=DomainRequestSerializer,
        responses={200: DomainResponseSerializer, 400: bad_request("tool", "...")},
        summary="Before a tool call: the patterns of the domains it touches",
    )
    def post(self, request):
        r = _request(DomainRequestSerializer, request.data)
        return Response(
            selectors.recall_domain(
                tool=r.validated_data["tool"],
                arguments=r.validated_data["arguments"],
                scopes=r.scopes(),
                options=r.options(),
            )
        )


class QueryView(RecallView):
    serializer_class = QueryRequestSerializer

    @extend_schema(
        operation_id="recall_query",
        request=QueryRequestSerializer,
        responses={200: QueryResponseSerializer, 400: bad_request("query", "...")},
        summary="Free recall: entities, facts, book passages and graph in one ranked list",
    )
    def post(self, request):
        r = _request(QueryRequestSerializer, request.data)
        return Response(
            selectors.recall_query(
                query=r.validated_data["query"], scopes=r.scopes(), options=r.options()
            )
        )


def _entity_named(value: str, field: str) -> Entity:
    """An entity the body names as MCP's ``episode_store`` takes it (id, name, alias,
    imported id; a merged-away id stands for its survivor), by the same resolver: an
    unknown one is a 400 naming the item, never a guess."""
    found = graph_selectors.entity_resolve(value, field=field)
    if found is None:
        raise InvalidInput(
            f"no entity '{value}'; create it with POST /api/v1/entities/ first", field=field
        )
    return found


def _fact_named(fact_id: int, field: str, scope: str) -> Fact:
    """A fact the episode's project sees (its own or global memory), as MCP's
    ``episode_store`` takes: another project's fact is not found."""
    try:
        return entity_selectors.fact_get(fact_id=fact_id, scopes=ScopeFilter.of(scope))
    except NotFound as exc:
        exc.field = field  # the body's list item, as MCP episode_store names it
        raise


class EpisodeCreateView(GenericAPIView):
    serializer_class = EpisodeWriteSerializer
    pagination_class = None

    @extend_schema(
        operation_id="recall_episode_create",
        request=EpisodeWriteSerializer,
        responses={
            201: EpisodeSerializer,
            400: bad_request("entities.0", "no entity 'Harbour Works'; create it ..."),
            404: OpenApiResponse(ErrorResponseSerializer, description="An unknown fact."),
            409: OpenApiResponse(
                ErrorResponseSerializer,
                description="A name entities of several types share, with candidates.",
            ),
        },
        summary="Record past work of a session (embedded for recall)",
    )
    def post(self, request):
        data = _request(EpisodeWriteSerializer, request.data).validated_data
        entities = [_entity_named(e, f"entities.{i}") for i, e in enumerate(data["entities"])]
        facts = [_fact_named(f, f"facts.{i}", data["scope"]) for i, f in enumerate(data["facts"])]
        episode = services.episode_store(
            narrative=data["narrative"],
            scope=data["scope"],
            session_id=data["session_id"],
            ai_id=data["ai_id"],
            entities=entities,
            facts=facts,
            actor=request.user,
        )
        return Response(EpisodeSerializer(episode).data, status=status.HTTP_201_CREATED)
