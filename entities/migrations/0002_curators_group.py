from django.db import migrations


def create_curators(apps, schema_editor):
    """A "curators" group holding the curate permission, ready for new accounts."""
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="curators")
    perm = Permission.objects.get(codename="curate", content_type__app_label="entities")
    group.permissions.add(perm)


class Migration(migrations.Migration):
    dependencies = [
        ("entities", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(create_curators, migrations.RunPython.noop)]
