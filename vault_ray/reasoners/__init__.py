from .base import Extraction, JudgeCase, Judgement, Message, OwnVerdict, Reasoner, latest_turn
from .rules import RuleReasoner
from .scripted import ScriptedReasoner

__all__ = [
    "Extraction", "JudgeCase", "Judgement", "Message", "OwnVerdict", "Reasoner", "RuleReasoner", "ScriptedReasoner",
    "latest_turn",
]
