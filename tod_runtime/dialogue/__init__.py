"""SGD dialogue models, shared by every pipeline stage."""

from tod_runtime.dialogue.history import History
from tod_runtime.dialogue.models import (
    DONTCARE,
    SYSTEM_ACTS,
    USER_ACTS,
    Action,
    Dialogue,
    Frame,
    ServiceCall,
    SlotSpan,
    State,
    Turn,
    act,
)
from tod_runtime.dialogue.validate import check_against_schemas, parse_dialogue_list

__all__ = [
    "DONTCARE",
    "SYSTEM_ACTS",
    "USER_ACTS",
    "Action",
    "Dialogue",
    "Frame",
    "History",
    "ServiceCall",
    "SlotSpan",
    "State",
    "Turn",
    "act",
    "check_against_schemas",
    "parse_dialogue_list",
]
