"""TOML text into typed Python values: resolved configs, and the sweep values of version 1
files (stored there as their TOML text)."""
try:
    import tomllib
except ImportError:  # Python before 3.11
    import tomli as tomllib


def flatten(table, prefix=""):
    """{"train": {"batch_size": 64}} -> {"train.batch_size": 64}; lists stay lists."""
    flat = {}
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, dotted + "."))
        else:
            flat[dotted] = value
    return flat


def config_values(toml_text):
    """Every key of a resolved experiment TOML, dotted, with its TOML type."""
    return flatten(tomllib.loads(toml_text))


def value_of(text):
    """The typed value of TOML value text ("64" -> 64, "true" -> True); other text as is
    (a swept section's "zero(stage=2)")."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text
