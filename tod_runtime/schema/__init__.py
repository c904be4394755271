"""SGD service schemas: models and loading."""

from tod_runtime.schema.loader import Schemas, load_schema_file, parse_schema_list
from tod_runtime.schema.models import IntentSchema, ServiceSchema, SlotSchema

__all__ = [
    "IntentSchema",
    "Schemas",
    "ServiceSchema",
    "SlotSchema",
    "load_schema_file",
    "parse_schema_list",
]
