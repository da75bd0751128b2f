from django.apps import AppConfig


class KgsiteConfig(AppConfig):
    name = "kgsite"
    verbose_name = "kgsite core"
