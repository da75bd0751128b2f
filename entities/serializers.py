"""Input and output shapes of the entities API (validation only; no business logic)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from kgsite.text import MAX_NAME_LENGTH

from .models import Alias, DuplicateSuggestion, Entity, EntityMerge, Fact


class EntityBriefSerializer(serializers.Serializer):
    id = serializers.CharField()
    canonical_name = serializers.CharField()
    type = serializers.CharField()


class SuggestionSerializer(EntityBriefSerializer):
    score = serializers.FloatField()


class ExternalIdSerializer(serializers.Serializer):
    store = serializers.CharField(help_text="The imported memory (import_entity_kg --store).")
    id = serializers.CharField(help_text="The id there, as the store spelt it.")


class ExternalFactRefSerializer(ExternalIdSerializer):
    fact = serializers.IntegerField(
        allow_null=True, help_text="The fact it became; null: the store had no facts table."
    )


class LookupResponseSerializer(serializers.Serializer):
    match = serializers.ChoiceField(
        choices=["canonical", "alias", "external_id", "ambiguous", "none"]
    )
    entity = EntityBriefSerializer(allow_null=True)
    aliases = serializers.ListField(child=serializers.CharField())
    facts = serializers.ListField(child=serializers.IntegerField())
    candidates = EntityBriefSerializer(many=True)
    suggestions = SuggestionSerializer(many=True)
    external_ids = ExternalIdSerializer(many=True, help_text="Its ids in imported memories.")
    external_facts = ExternalFactRefSerializer(
        many=True, help_text="Fact ids an imported memory linked to it."
    )


SCOPE_HELP = "Project key: that project's facts plus global ones. Absent: global memory only."
ALL_SCOPES_HELP = "Opt in to global recall: facts of every project."


class ScopeQuerySerializer(serializers.Serializer):
    SCOPE_HELP = SCOPE_HELP
    ALL_SCOPES_HELP = ALL_SCOPES_HELP
    scope = serializers.CharField(
        required=False, allow_blank=True, max_length=128, default="", help_text=SCOPE_HELP
    )
    all_scopes = serializers.BooleanField(required=False, default=False, help_text=ALL_SCOPES_HELP)


class LookupQuerySerializer(ScopeQuerySerializer):
    name = serializers.CharField(trim_whitespace=False, allow_blank=True)
    type = serializers.CharField(required=False, allow_blank=True)


class EntitySerializer(serializers.ModelSerializer):
    aliases = serializers.SlugRelatedField(many=True, read_only=True, slug_field="alias")
    external_ids = serializers.SerializerMethodField(help_text="Its ids in imported memories.")
    external_facts = serializers.SerializerMethodField(
        help_text="Fact ids an imported memory linked to it (fact: what each became)."
    )

    class Meta:
        model = Entity
        fields = [
            "id",
            "canonical_name",
            "type",
            "description",
            "aliases",
            "external_ids",
            "external_facts",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "aliases", "created_at", "updated_at"]

    @extend_schema_field(ExternalIdSerializer(many=True))
    def get_external_ids(self, entity) -> list[dict]:
        return [
            {"store": row.store, "id": row.external_id}
            for row in sorted(entity.external_ids.all(), key=lambda r: (r.store, r.external_id))
        ]

    @extend_schema_field(ExternalFactRefSerializer(many=True))
    def get_external_facts(self, entity) -> list[dict]:
        """Of the imports the reader's scope sees (``context["scopes"]``; default global)."""
        scopes = self.context.get("scopes")
        sees = scopes.sees if scopes is not None else (lambda scope: scope == "")
        rows = [r for r in entity.external_facts.all() if sees(r.scope)]
        return [
            {"store": row.store, "id": row.external_id, "fact": row.fact_id}
            for row in sorted(rows, key=lambda r: (r.store, r.external_id))
        ]


def _description(**kwargs) -> serializers.CharField:
    limit = settings.KGSITE_MAX_DESCRIPTION_CHARS
    return serializers.CharField(
        allow_blank=True,
        max_length=limit,
        help_text=f"At most {limit} characters (KGSITE_MAX_DESCRIPTION_CHARS).",
        **kwargs,
    )


class StrictSerializer(serializers.Serializer):
    """A write body: a field it does not list is refused by name (400), never dropped, so
    a client's misspelt or misplaced field ("object" for "object_value") loses nothing
    silently."""

    unknown_message = "unknown field"

    def validate(self, attrs: dict) -> dict:
        data = getattr(self, "initial_data", {})
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, dict) else []
        if unknown:
            known = ", ".join(sorted(self.fields))
            raise serializers.ValidationError(
                {unknown[0]: f"{self.unknown_message} (the fields are: {known})"}
            )
        return attrs


class EntityWriteSerializer(StrictSerializer):
    canonical_name = serializers.CharField(trim_whitespace=False, allow_blank=True)
    type = serializers.CharField(required=False, allow_blank=True, default=None)
    description = _description(required=False, default="")
    aliases = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False, max_length=MAX_NAME_LENGTH),
        required=False,
        default=list,
        max_length=settings.KGSITE_MAX_ALIASES_PER_REQUEST,
        help_text=f"At most {settings.KGSITE_MAX_ALIASES_PER_REQUEST} aliases per request "
        "(KGSITE_MAX_ALIASES_PER_REQUEST); add more one by one.",
    )


class EditSerializer(StrictSerializer):
    """A PATCH body: a field it does not list is refused by name, never dropped."""

    unknown_message = "this field cannot be edited"


class EntityUpdateSerializer(EditSerializer):
    canonical_name = serializers.CharField(required=False, trim_whitespace=False)
    type = serializers.CharField(required=False, allow_blank=True)
    description = _description(required=False)


class AliasSerializer(serializers.ModelSerializer):
    class Meta:
        model = Alias
        fields = ["id", "alias", "manual", "created_at"]


class AliasWriteSerializer(StrictSerializer):
    alias = serializers.CharField(trim_whitespace=False, allow_blank=True)


class FactSerializer(serializers.ModelSerializer):
    entities = serializers.SerializerMethodField()

    class Meta:
        model = Fact
        fields = [
            "id",
            "text",
            "subject",
            "predicate",
            "object_entity",
            "object_value",
            "confidence",
            "confirmations",
            "source",
            "client",
            "status",
            "valid_from",
            "valid_to",
            "kind",
            "goal_status",
            "resolved_by",
            "domain",
            "scope",
            "ai_id",
            "session_id",
            "entities",
            "created_at",
            "updated_at",
        ]

    def get_entities(self, fact: Fact) -> list[dict]:
        return [
            {
                "id": link.entity_id,
                "canonical_name": link.entity.canonical_name,
                "type": link.entity.type,
                "role": link.role,
            }
            for link in fact.entity_facts.all()
        ]


def _fact_limit(field: str) -> int:
    """The column length, documented in the schema (the service enforces it too)."""
    return Fact._meta.get_field(field).max_length


class FactConfirmationSerializer(serializers.Serializer):
    """A statement ``fact_store`` folded into this fact as a confirmation (its evidence)."""

    id = serializers.IntegerField()
    text = serializers.CharField()
    source = serializers.CharField()
    client = serializers.CharField()
    confidence = serializers.FloatField()
    created_at = serializers.DateTimeField()
    undone_at = serializers.DateTimeField(allow_null=True)
    restored_fact = serializers.IntegerField(source="restored_fact_id", allow_null=True)


class FactDetailSerializer(FactSerializer):
    confirmed_by = serializers.SerializerMethodField(
        help_text="The statements folded into this fact as confirmations, newest first; "
        "a wrong one is undone by POST .../confirmations/<id>/undo."
    )

    class Meta(FactSerializer.Meta):
        fields = [*FactSerializer.Meta.fields, "confirmed_by"]

    @extend_schema_field(FactConfirmationSerializer(many=True))
    def get_confirmed_by(self, fact) -> list[dict]:
        rows = fact.confirmation_rows.order_by("-created_at", "-id")
        return FactConfirmationSerializer(rows, many=True).data


class FactRefSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The id as asked.")
    found = serializers.BooleanField()
    fact = FactSerializer(allow_null=True)
    store = serializers.CharField(required=False, help_text="The imported memory it came from.")
    external = serializers.BooleanField(
        required=False, help_text="True: the store had no facts table; only the id is known."
    )
    entities = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="Entities it was linked to."
    )


class FactConfirmationUndoResponseSerializer(serializers.Serializer):
    fact = FactSerializer(help_text="The fact that had been confirmed, its count lowered.")
    restored = FactSerializer(help_text="The swallowed statement, now a fact of its own.")


# A statement names a handful of entities; a list of thousands is a mistake, not a fact.
MAX_FACT_ENTITIES = 100


class FactWriteSerializer(StrictSerializer):
    text = serializers.CharField(trim_whitespace=False, allow_blank=True)
    subject = serializers.CharField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The triple's subject: an entity id, imported id, canonical name or alias "
        "(as MCP fact_store takes it).",
    )
    predicate = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=_fact_limit("predicate")
    )
    object_entity = serializers.CharField(
        required=False,
        allow_null=True,
        default=None,
        help_text="The triple's object entity: an id, imported id, canonical name or alias.",
    )
    object_value = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=_fact_limit("object_value")
    )
    entities = serializers.ListField(
        child=serializers.CharField(max_length=255),
        required=False,
        default=list,
        max_length=MAX_FACT_ENTITIES,
        help_text="Entities the fact mentions: ids, imported ids, canonical names or "
        f"aliases (at most {MAX_FACT_ENTITIES}).",
    )
    confidence = serializers.FloatField(required=False, default=1.0, min_value=0, max_value=1)
    source = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=_fact_limit("source")
    )
    client = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=_fact_limit("client")
    )
    valid_from = serializers.DateTimeField(required=False, allow_null=True, default=None)
    valid_to = serializers.DateTimeField(required=False, allow_null=True, default=None)
    kind = serializers.ChoiceField(choices=Fact.Kind.choices, required=False, default="fact")
    goal_status = serializers.ChoiceField(
        choices=Fact.GoalStatus.choices,
        required=False,
        allow_blank=True,
        default="",
        help_text="A goal's progress (active by default); only for kind goal.",
    )
    resolved_by = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="The resolution; required for kind resolved_unknown, whose text is the "
        "original unknown.",
    )
    domain = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=_fact_limit("domain"),
        help_text="A pattern's domain (auth, api, db, ...); only for kind pattern.",
    )
    scope = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=128,
        help_text="Project key; empty stores global memory.",
    )
    ai_id = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=_fact_limit("ai_id")
    )
    session_id = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=_fact_limit("session_id")
    )


# Named "PatchedFact" in the schema, so its status enum is the Fact's (FactStatusEnum).
@extend_schema_serializer(component_name="Fact")
class FactUpdateSerializer(EditSerializer):
    """Editable fields of a fact; the entity links and triple ends are not edited here."""

    text = serializers.CharField(required=False, trim_whitespace=False, allow_blank=True)
    predicate = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    object_value = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    confidence = serializers.FloatField(required=False, min_value=0, max_value=1)
    source = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    status = serializers.ChoiceField(
        required=False,
        choices=Fact.Status.choices,
        help_text="Retract a fact instead of deleting it.",
    )
    valid_from = serializers.DateTimeField(required=False, allow_null=True)
    valid_to = serializers.DateTimeField(required=False, allow_null=True)
    kind = serializers.ChoiceField(required=False, choices=Fact.Kind.choices)
    goal_status = serializers.ChoiceField(
        required=False, choices=Fact.GoalStatus.choices, help_text="Mark a goal done."
    )
    resolved_by = serializers.CharField(required=False, allow_blank=True)
    domain = serializers.CharField(required=False, allow_blank=True)


class FactStoreResponseSerializer(serializers.Serializer):
    action = serializers.ChoiceField(choices=["created", "confirmed"])
    fact = FactSerializer()


# --- merges and duplicate suggestions ---------------------------------------------------


class MergeRequestSerializer(StrictSerializer):
    survivor = serializers.CharField(help_text="Id of the entity that stays.")
    duplicates = serializers.ListField(
        child=serializers.CharField(),
        allow_empty=False,
        help_text="Ids of the entities merged into the survivor (they stop existing; "
        "their ids redirect to the survivor).",
    )
    preview = serializers.BooleanField(
        required=False, default=False, help_text="Say what would move; write nothing."
    )
    allow_cross_type = serializers.BooleanField(
        required=False, default=False, help_text="Needed to merge entities of another type."
    )


class MergeConflictSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(
        choices=["alias_dropped", "name_not_added", "fact_self_reference"]
    )
    value = serializers.JSONField(help_text="The alias or name, or the fact id.")
    message = serializers.CharField()


class MergeMovesSerializer(serializers.Serializer):
    aliases = serializers.IntegerField(help_text="Alias rows moved to the survivor.")
    facts = serializers.IntegerField(help_text="Facts relinked (any role, subject, object).")
    mentions = serializers.IntegerField(required=False, help_text="Book mentions moved.")


class MergePreviewSerializer(serializers.Serializer):
    survivor = EntityBriefSerializer()
    duplicates = EntityBriefSerializer(many=True)
    moves = MergeMovesSerializer()
    new_aliases = serializers.ListField(
        child=serializers.CharField(), help_text="The duplicates' names the survivor gains."
    )
    conflicts = MergeConflictSerializer(many=True)


class MergeSerializer(serializers.ModelSerializer):
    survivor = serializers.CharField(source="survivor_id", allow_null=True)
    duplicates = serializers.ListField(source="duplicate_ids", child=serializers.CharField())
    undone = serializers.BooleanField()
    actor = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = EntityMerge
        fields = [
            "id",
            "survivor",
            "survivor_name",
            "duplicates",
            "created_at",
            "undone",
            "undone_at",
            "actor",
        ]


class MergeResponseSerializer(serializers.Serializer):
    merge = MergeSerializer()
    survivor = EntitySerializer()
    conflicts = MergeConflictSerializer(many=True)


class MergeUndoResponseSerializer(serializers.Serializer):
    merge = MergeSerializer()
    restored = EntitySerializer(many=True)


class EntityMovedSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The merged-away id asked for.")
    merged_into = serializers.CharField(help_text="The entity that absorbed it.")
    location = serializers.CharField()


class DuplicateSuggestionSerializer(serializers.ModelSerializer):
    entity_a = EntityBriefSerializer()
    entity_b = EntityBriefSerializer()
    evidence = serializers.JSONField(
        help_text='[{"kind": "same_name_other_type" | "alias_is_name" | "name_similarity" | '
        '"embedding_similarity" | "shared_facts", "score", ...}]'
    )

    class Meta:
        model = DuplicateSuggestion
        fields = ["id", "entity_a", "entity_b", "score", "evidence", "status", "created_at"]
