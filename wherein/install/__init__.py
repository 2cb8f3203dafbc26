"""Register `wherein serve` with coding agents, in each agent's own config file, and undo it."""

from wherein.install.agents import PROJECT, REGISTRY, SCOPES, USER, Agent
from wherein.install.apply import Outcome, apply_plan, format_outcome
from wherein.install.change import FileChange
from wherein.install.command import server_command
from wherein.install.plan import (
    SERVER_NAME,
    Plan,
    plan_install,
    plan_uninstall,
    read_entry,
)

__all__ = [
    "PROJECT",
    "REGISTRY",
    "SCOPES",
    "SERVER_NAME",
    "USER",
    "Agent",
    "FileChange",
    "Outcome",
    "Plan",
    "apply_plan",
    "format_outcome",
    "plan_install",
    "plan_uninstall",
    "read_entry",
    "server_command",
]
