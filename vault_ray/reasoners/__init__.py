from .base import JudgeCase, Judgement, Message, OwnVerdict, Reasoner, latest_turn
from .rules import RuleReasoner
from .scripted import ScriptedReasoner

__all__ = [
    "JudgeCase", "Judgement", "Message", "OwnVerdict", "Reasoner", "RuleReasoner", "ScriptedReasoner", "latest_turn",
]
