"""The forms of the curator pages that write (parsing only: the services validate)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy

from kgsite.models import AuditEntry

from .models import Fact


def latest_entry(user, action: str, target) -> AuditEntry | None:
    """The audit row this user's last ``action`` on ``target`` wrote (its undo)."""
    return (
        AuditEntry.objects.filter(
            actor=user if user.is_authenticated else None,
            action=action,
            target_type=target._meta.label_lower,
            target_id=str(target.pk),
        )
        .order_by("-id")
        .first()
    )


FACT_SHOWN = (
    "text",
    "predicate",
    "object_value",
    "confidence",
    "source",
    "status",
    "valid_from",
    "valid_to",
)

ENTITY_SHOWN = ("canonical_name", "type", "description")


class EntityForm(forms.Form):
    canonical_name = forms.CharField(label=gettext_lazy("Name"), max_length=512)
    type = forms.CharField(
        label=gettext_lazy("Type"),
        max_length=64,
        required=False,
        widget=forms.TextInput(attrs={"list": "entity-types", "autocomplete": "off"}),
    )
    description = forms.CharField(
        label=gettext_lazy("Description"), required=False, widget=forms.Textarea(attrs={"rows": 3})
    )
    aliases = forms.CharField(
        label=gettext_lazy("Aliases"),
        required=False,
        help_text=gettext_lazy("one a line"),
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def clean_aliases(self) -> str:
        """As many as the API takes at once (``KGSITE_MAX_ALIASES_PER_REQUEST``): each is
        checked against every name, so a pasted list of thousands held the request."""
        text = self.cleaned_data.get("aliases", "")
        limit = settings.KGSITE_MAX_ALIASES_PER_REQUEST
        if sum(1 for line in text.splitlines() if line.strip()) > limit:
            raise forms.ValidationError(
                gettext_lazy("At most %(limit)s aliases at once; add more on the entity's page.")
                % {"limit": limit}
            )
        return text

    def alias_list(self) -> list[str]:
        return [a.strip() for a in self.cleaned_data.get("aliases", "").splitlines() if a.strip()]


# An <input type="date"> holds its value as yyyy-mm-dd whatever the page's language (the
# browser shows it in the reader's own format): the locale's first input format
# ("08/07/1835" on the Italian pages) is no value to it, so the box showed empty and a
# save sent the date away.
DATE_VALUE = "%Y-%m-%d"


class FactForm(forms.Form):
    text = forms.CharField(
        label=gettext_lazy("Fact"), widget=forms.Textarea(attrs={"rows": 2}), max_length=10_000
    )
    predicate = forms.CharField(label=gettext_lazy("Predicate"), max_length=128, required=False)
    object_name = forms.CharField(
        label=gettext_lazy("Object entity"), max_length=512, required=False
    )
    object_value = forms.CharField(
        label=gettext_lazy("or object value"), max_length=1024, required=False
    )
    confidence = forms.FloatField(
        label=gettext_lazy("Confidence"),
        min_value=0,
        max_value=1,
        initial=1.0,
        required=False,
        localize=True,
    )
    source = forms.CharField(label=gettext_lazy("Source"), max_length=255, required=False)
    valid_from = forms.DateField(
        label=gettext_lazy("Valid from"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format=DATE_VALUE),
    )
    valid_to = forms.DateField(
        label=gettext_lazy("Valid until"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format=DATE_VALUE),
    )


class FactEditForm(FactForm):
    status = forms.ChoiceField(
        label=gettext_lazy("Status"),
        choices=[(value, gettext_lazy(label)) for value, label in Fact.Status.choices],
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["object_name"]
