from django.apps import AppConfig


class KgsiteConfig(AppConfig):
    name = "kgsite"
    verbose_name = "kgsite core"

    def ready(self) -> None:
        from django.urls import register_converter

        from kgsite import fields
        from kgsite.converters import IdConverter

        # Text fields take strings only; choice errors name the allowed values.
        fields.install()

        # <id:...> in every app's API routes: a numeric id that fits a 64-bit column.
        register_converter(IdConverter, "id")

        from kgsite.vectors.service import embed_texts
        from kgsite.warmup import warmer

        # The sentence encoder (torch and the model: seconds) before the first request.
        warmer("embedder", lambda: embed_texts(["The warm-up sentence of a new process."]))
