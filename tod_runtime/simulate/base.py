"""The simulator's seams (``Simulator``, ``SimulatedUser``, ``UserRealiser``, ``Goal``,
``Task``, ``SystemTurnView``): their public name. They are defined in
``tod_runtime.dialogue.simulation``, below ``plugins`` and ``simulate`` alike."""

from tod_runtime.dialogue.simulation import (
    Goal,
    SimulatedUser,
    Simulator,
    SystemTurnView,
    Task,
    UserRealiser,
)

__all__ = ["Goal", "SimulatedUser", "Simulator", "SystemTurnView", "Task", "UserRealiser"]
