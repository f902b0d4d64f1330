import vault_ray


def test_all_is_sorted_and_complete():
    assert vault_ray.__all__ == sorted(vault_ray.__all__)
    public = {name for name in dir(vault_ray) if not name.startswith("_") and not _is_module(name)}
    assert public - {"annotations"} <= set(vault_ray.__all__) | {"__version__"}
    for name in vault_ray.__all__:
        assert hasattr(vault_ray, name), name


def _is_module(name: str) -> bool:
    import types

    return isinstance(getattr(vault_ray, name), types.ModuleType)


def test_every_error_derives_from_vault_error():
    from vault_ray import errors

    for name in dir(errors):
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, Exception) and obj.__module__ == errors.__name__:
            assert issubclass(obj, vault_ray.VaultError), name
            assert name in errors.__doc__, f"{name} missing from the tree drawn in errors.py"
