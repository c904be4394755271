"""Goal-annotated conversation scripts as tests: the format (``script``), the pass rule
(``judge``), running them through a runtime (``runner``) and ``tod test`` (``command``)."""

from tod_runtime.conversations.judge import AnsweredTurn, judge
from tod_runtime.conversations.runner import Outcome, run_all, run_script, run_scripts
from tod_runtime.conversations.script import ExpectedCall, Script, ScriptError, load_script

__all__ = [
    "AnsweredTurn",
    "ExpectedCall",
    "Outcome",
    "Script",
    "ScriptError",
    "judge",
    "load_script",
    "run_all",
    "run_script",
    "run_scripts",
]
