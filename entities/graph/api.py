"""TransE and graph endpoints: parse input, call one selector or service, render."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response

from kgsite.api import Reader, validated
from kgsite.errors import InvalidInput
from kgsite.text import shows_nothing

from ..names import normalize_type
from ..scopes import ScopeFilter
from ..serializers import ScopeQuerySerializer, StrictSerializer
from . import ppr, selectors, services
from .models import KGEModel


def scopes_of(data: dict) -> ScopeFilter:
    """The reader's view from validated ``scope``/``all_scopes`` (absent: global memory)."""
    return ScopeFilter.of(data.get("scope") or "", data.get("all_scopes", False))


NAME = {"max_length": 512, "allow_blank": False, "trim_whitespace": True}


class ValidateRequestSerializer(StrictSerializer, ScopeQuerySerializer):
    subject = serializers.CharField(help_text="Entity id, canonical name or alias.", **NAME)
    predicate = serializers.CharField(
        help_text="Any wording; folded onto a relation (synonyms, inverses).", max_length=128
    )
    object = serializers.CharField(help_text="Entity id, canonical name or alias.", **NAME)


class BriefEntitySerializer(serializers.Serializer):
    id = serializers.CharField()
    canonical_name = serializers.CharField()
    type = serializers.CharField()


KNOWN_HELP = (
    "False when an entity is unknown, the model has not seen an entity or the relation, "
    "no model is trained yet, or both sides are the same entity: then no score is given "
    "(`reason` says why)."
)


class ValidateResponseSerializer(serializers.Serializer):
    known = serializers.BooleanField(help_text=KNOWN_HELP)
    reason = serializers.CharField(required=False)
    subject = BriefEntitySerializer(allow_null=True)
    object = BriefEntitySerializer(allow_null=True)
    relation = serializers.CharField(help_text="The relation the predicate was folded onto.")
    inverse = serializers.BooleanField(help_text="The predicate is the relation's inverse.")
    model = serializers.IntegerField(required=False)
    transe_score = serializers.FloatField(required=False, help_text="-||h + r - t||.")
    confidence = serializers.FloatField(required=False, help_text="0..1, calibrated.")
    validation = serializers.ChoiceField(
        choices=["valid", "uncertain", "unlikely", "contradicted"],
        required=False,
        help_text="The model's label overruled by memory: `contradicted` when a stored fact "
        "speaks against the triple and none for it; never `valid` with a contradicting fact.",
    )
    model_validation = serializers.ChoiceField(
        choices=["valid", "uncertain", "unlikely"],
        required=False,
        help_text="The model's own label, from the score alone.",
    )
    supporting_facts = serializers.ListField(child=serializers.IntegerField())
    contradicting_facts = serializers.ListField(child=serializers.IntegerField())


class InferRequestSerializer(StrictSerializer, ScopeQuerySerializer):
    head = serializers.CharField(**NAME)
    tail = serializers.CharField(**NAME)
    topK = serializers.IntegerField(  # noqa: N815 - the API's published field name
        min_value=1, max_value=selectors.TOP_K_MAX, default=5
    )


class InferredRelationSerializer(serializers.Serializer):
    relation = serializers.CharField()
    stored_as = serializers.CharField()
    inverse = serializers.BooleanField()
    score = serializers.FloatField()
    confidence = serializers.FloatField()
    validation = serializers.CharField()


class InferResponseSerializer(serializers.Serializer):
    known = serializers.BooleanField(help_text=KNOWN_HELP)
    reason = serializers.CharField(required=False)
    head = BriefEntitySerializer(allow_null=True)
    tail = BriefEntitySerializer(allow_null=True)
    model = serializers.IntegerField(required=False)
    relations = InferredRelationSerializer(many=True)


class RelatedRequestSerializer(StrictSerializer, ScopeQuerySerializer):
    entity = serializers.CharField(**NAME)
    relation = serializers.CharField(max_length=128)
    direction = serializers.ChoiceField(choices=["outgoing", "incoming"], default="outgoing")
    entityType = serializers.CharField(  # noqa: N815
        required=False, max_length=64, help_text="Only entities of this type."
    )
    topK = serializers.IntegerField(  # noqa: N815
        min_value=1, max_value=selectors.TOP_K_MAX, default=10
    )
    minScore = serializers.FloatField(  # noqa: N815
        min_value=0, max_value=1, default=0.0, help_text="Minimum confidence."
    )

    def validate_entityType(self, value: str) -> str:  # noqa: N802 - field name
        try:
            return normalize_type(value)
        except InvalidInput as exc:
            raise serializers.ValidationError(exc.message) from None


class RelatedEntitySerializer(BriefEntitySerializer):
    score = serializers.FloatField()
    confidence = serializers.FloatField()
    found_in_memories = serializers.ListField(
        child=serializers.IntegerField(), help_text="Facts that already state it."
    )


class RelatedResponseSerializer(serializers.Serializer):
    known = serializers.BooleanField(help_text=KNOWN_HELP)
    reason = serializers.CharField(required=False)
    entity = BriefEntitySerializer(allow_null=True)
    relation = serializers.CharField(help_text="The relation the asked one was folded onto.")
    inverse = serializers.BooleanField(
        help_text="The relation was asked by its inverse name (employs for works_at): "
        "`direction` is as asked, so outgoing answers are the stored relation's heads."
    )
    direction = serializers.CharField()
    model = serializers.IntegerField(required=False)
    results = RelatedEntitySerializer(many=True)


class KGEView(GenericAPIView):
    # Reads through a POST: private like search and recall (KGSITE_PUBLIC_READ opens them).
    permission_classes = [Reader]


class ValidateView(KGEView):
    serializer_class = ValidateRequestSerializer

    @extend_schema(
        request=ValidateRequestSerializer,
        responses=ValidateResponseSerializer,
        summary="validate_knowledge: how plausible a triple is under the trained TransE model",
    )
    def post(self, request):
        data = validated(ValidateRequestSerializer, request.data)
        return Response(
            selectors.kge_validate(
                subject=data["subject"],
                predicate=data["predicate"],
                obj=data["object"],
                scopes=scopes_of(data),
            )
        )


class InferRelationView(KGEView):
    serializer_class = InferRequestSerializer

    @extend_schema(
        request=InferRequestSerializer,
        responses=InferResponseSerializer,
        summary="infer_relationship: the relations most likely linking head to tail",
    )
    def post(self, request):
        data = validated(InferRequestSerializer, request.data)
        return Response(
            selectors.kge_infer_relation(
                head=data["head"], tail=data["tail"], top_k=data["topK"], scopes=scopes_of(data)
            )
        )


class RelatedView(KGEView):
    serializer_class = RelatedRequestSerializer

    @extend_schema(
        request=RelatedRequestSerializer,
        responses=RelatedResponseSerializer,
        summary="find_related_entities: entities likely in a relation to this one",
    )
    def post(self, request):
        data = validated(RelatedRequestSerializer, request.data)
        return Response(
            selectors.kge_related(
                entity=data["entity"],
                relation=data["relation"],
                direction=data["direction"],
                entity_type=data.get("entityType") or None,
                top_k=data["topK"],
                min_score=data["minScore"],
                scopes=scopes_of(data),
            )
        )


class KGEModelSerializer(serializers.ModelSerializer):
    class Meta:
        model = KGEModel
        fields = [
            "id",
            "status",
            "good",
            "scope",
            "all_scopes",
            "dim",
            "entity_count",
            "relation_count",
            "triple_count",
            "settings",
            "metrics",
            "thresholds",
            "done",
            "total",
            "error",
            "created_at",
            "updated_at",
        ]


class TrainRequestSerializer(StrictSerializer, ScopeQuerySerializer):
    dim = serializers.IntegerField(
        min_value=services.DIM_MIN, max_value=services.DIM_MAX, required=False
    )
    epochs = serializers.IntegerField(min_value=1, max_value=services.EPOCHS_MAX, required=False)
    seed = serializers.IntegerField(min_value=0, max_value=services.SEED_MAX, required=False)


class KGEModelListView(GenericAPIView):
    serializer_class = KGEModelSerializer
    queryset = KGEModel.objects.defer("blob")

    @extend_schema(
        parameters=[ScopeQuerySerializer],
        responses=KGEModelSerializer(many=True),
        summary="Trained TransE models of the views the reader sees",
        description="Global memory's models, those of `scope`, and with `all_scopes` every "
        "project's and the all-projects ones.",
    )
    def get(self, request):
        params = validated(ScopeQuerySerializer, request.query_params)
        scopes = scopes_of(params)
        services.kge_runs_recover()  # a run whose worker died reads failed, not training
        models = self.get_queryset()
        if not scopes.all_scopes:
            models = models.filter(all_scopes=False, scope__in=["", scopes.scope])
        page = self.paginate_queryset(models)
        return self.get_paginated_response(KGEModelSerializer(page, many=True).data)

    @extend_schema(
        request=TrainRequestSerializer,
        responses={202: KGEModelSerializer},
        summary="Queue a TransE training run on the current edges (curators)",
    )
    def post(self, request):
        data = validated(TrainRequestSerializer, request.data)
        config = {k: v for k, v in data.items() if k not in ("scope", "all_scopes")}
        row = services.kge_train_enqueue(config=config, scopes=scopes_of(data))
        row.refresh_from_db()
        return Response(KGEModelSerializer(row).data, status=status.HTTP_202_ACCEPTED)


# --- the graph ---------------------------------------------------------------------------


class GraphQuerySerializer(ScopeQuerySerializer):
    depth = serializers.IntegerField(min_value=1, max_value=selectors.GRAPH_DEPTH_MAX, default=1)
    max_nodes = serializers.IntegerField(
        min_value=1, max_value=selectors.GRAPH_NODES_MAX, default=50
    )
    types = serializers.CharField(
        required=False, allow_blank=True, help_text="Comma-separated entity types to keep."
    )
    min_weight = serializers.FloatField(
        min_value=0, default=0.0, help_text="Only edges at least this heavy (summed confidence)."
    )


class GraphNodeSerializer(serializers.Serializer):
    id = serializers.CharField()
    label = serializers.CharField()
    type = serializers.CharField()
    depth = serializers.IntegerField()
    mention_count = serializers.IntegerField()
    fact_count = serializers.IntegerField()
    importance = serializers.FloatField(help_text="Weighted degree, 1 for the strongest node.")


class GraphEdgeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    source = serializers.CharField()
    target = serializers.CharField()
    relation = serializers.CharField()
    weight = serializers.FloatField()
    fact_ids = serializers.ListField(child=serializers.IntegerField())


class GraphResponseSerializer(serializers.Serializer):
    root = serializers.CharField()
    nodes = GraphNodeSerializer(many=True)
    edges = GraphEdgeSerializer(many=True)


def graph_types(raw: str | None) -> list[str]:
    return selectors.types_normalize(raw.split(",")) if raw else []


class EntityGraphView(GenericAPIView):
    serializer_class = GraphResponseSerializer

    @extend_schema(
        parameters=[GraphQuerySerializer],
        responses=GraphResponseSerializer,
        summary="get_entity_graph: nodes and edges around an entity",
    )
    def get(self, request, entity_id: str):
        params = validated(GraphQuerySerializer, request.query_params)
        return Response(
            selectors.entity_graph(
                entity_id=entity_id,
                depth=params["depth"],
                max_nodes=params["max_nodes"],
                types=graph_types(params.get("types")),
                min_weight=params["min_weight"],
                scopes=scopes_of(params),
            )
        )


class StepSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["entity", "fact", "chunk"])
    id = serializers.CharField()
    label = serializers.CharField()


class PathStepSerializer(serializers.Serializer):
    via = serializers.CharField(help_text="The link followed: a relation, states, mentioned in.")
    to = StepSerializer()


class RankedSerializer(serializers.Serializer):
    """An entity reached by the walk: its id is the entity's (a string)."""

    id = serializers.CharField()
    label = serializers.CharField()
    score = serializers.FloatField()
    hops = serializers.IntegerField()
    path = serializers.ListField(
        child=serializers.DictField(), help_text="The start entity, then {via, to} steps."
    )


class RankedRowSerializer(RankedSerializer):
    """A fact or a book chunk reached by the walk: its id is a number."""

    id = serializers.IntegerField()


class NeighborsQuerySerializer(ScopeQuerySerializer):
    hops = serializers.IntegerField(min_value=1, max_value=3, default=1)
    k = serializers.IntegerField(min_value=1, max_value=ppr.K_MAX, default=20)


class NeighborsResponseSerializer(serializers.Serializer):
    entity = BriefEntitySerializer()
    neighbors = RankedSerializer(many=True)


class NeighborsView(GenericAPIView):
    serializer_class = NeighborsResponseSerializer

    @extend_schema(
        parameters=[NeighborsQuerySerializer],
        responses=NeighborsResponseSerializer,
        summary="Entities within a few edges, nearest first, then by Personalized PageRank",
    )
    def get(self, request, entity_id: str):
        params = validated(NeighborsQuerySerializer, request.query_params)
        entity = selectors.entity_by_id(entity_id)
        rows = ppr.neighbors(
            entity_id=entity.pk, hops=params["hops"], k=params["k"], scopes=scopes_of(params)
        )
        return Response({"entity": selectors.entity_brief(entity), "neighbors": rows})


class PPRRequestSerializer(StrictSerializer, ScopeQuerySerializer):
    query_entities = serializers.ListField(
        child=serializers.CharField(**NAME),
        required=False,
        max_length=20,
        help_text="Entity ids, names or aliases to start from.",
    )
    query = serializers.CharField(
        required=False, max_length=5000, help_text="Free text: its known entities start the walk."
    )
    damping = serializers.FloatField(min_value=0.05, max_value=0.95, default=0.5)
    k = serializers.IntegerField(min_value=1, max_value=ppr.K_MAX, default=10)
    hops = serializers.IntegerField(min_value=1, max_value=ppr.HOPS_MAX, default=ppr.HOPS)

    def validate(self, attrs):
        if not attrs.get("query_entities") and shows_nothing(attrs.get("query") or ""):
            raise serializers.ValidationError({"query": "give query_entities or query"})
        return super().validate(attrs)


class PPRResponseSerializer(serializers.Serializer):
    seeds = BriefEntitySerializer(many=True)
    unknown = serializers.ListField(
        child=serializers.CharField(),
        help_text="Names of query_entities that resolve to no entity (no walk starts there).",
    )
    facts = RankedRowSerializer(many=True)
    chunks = RankedRowSerializer(many=True)
    entities = RankedSerializer(many=True)


class PPRView(GenericAPIView):
    serializer_class = PPRRequestSerializer
    permission_classes = [Reader]

    @extend_schema(
        request=PPRRequestSerializer,
        responses=PPRResponseSerializer,
        summary="Multi-hop recall: facts and book chunks by Personalized PageRank",
    )
    def post(self, request):
        data = validated(PPRRequestSerializer, request.data)
        result = ppr.ppr_retrieve(
            query_entities=data.get("query_entities") or [],
            query=data.get("query") or "",
            damping=data["damping"],
            k=data["k"],
            hops=data["hops"],
            scopes=scopes_of(data),
        )
        return Response(result)
