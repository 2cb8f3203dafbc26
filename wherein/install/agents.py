"""The coding agents `wherein install` knows: where each keeps its MCP servers, and in what shape.

One registry entry per agent, each checked against that agent's documentation (cited beside
it). Three things differ between agents:

- the file and the key holding the servers (`mcpServers`, VS Code's `servers`, Zed's
  `context_servers`, Codex's TOML `[mcp_servers.<name>]`);
- whether the file may carry comments (VS Code, Zed and Gemini CLI read JSONC; the others use a
  plain JSON parser, so a comment there is already an error for the agent);
- which folder the agent starts a server in. `wherein serve` serves its working directory, so
  an agent that starts servers in the project gets plain `serve`; one that starts them in the
  home directory or `/` but expands `${workspaceFolder}` gets `--workspace ${workspaceFolder}`;
  one that does neither gets `--workspace` with the project's absolute path ("pinned").
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wherein.storage.paths import xdg_base

__all__ = [
    "PROJECT",
    "REGISTRY",
    "SCOPES",
    "USER",
    "Agent",
    "claude_folder",
    "claude_user_file",
    "serve_args",
]

USER = "user"
PROJECT = "project"
SCOPES = (USER, PROJECT)

# How each agent finds the workspace to serve (see the module docstring).
STARTS_IN_PROJECT = "cwd"
EXPANDS_VARIABLE = "variable"
PINNED = "pinned"
WORKSPACE_VARIABLE = "${workspaceFolder}"


@dataclass(frozen=True)
class Agent:
    """Where one agent keeps MCP servers and how an entry for `wherein serve` looks there."""

    name: str
    title: str
    docs: str
    file_format: str  # "json" | "toml"
    servers_key: tuple[str, ...]
    user_file: Callable[[], Path] | None
    project_file: str | None  # relative to the project
    entry_type: str | None  # the "type" field some agents want ("stdio"), or None
    workspace: str  # STARTS_IN_PROJECT | EXPANDS_VARIABLE | PINNED
    allows_comments: bool
    user_markers: Callable[[], tuple[Path, ...]]
    executables: tuple[str, ...]
    project_markers: tuple[str, ...] = ()
    user_instructions: Callable[[], Path] | None = None
    project_instructions: str | None = None

    def config_file(self, scope: str, workspace: Path) -> Path | None:
        """The file holding this agent's servers at `scope`, or None if it has none there."""
        if scope == USER:
            return self.user_file() if self.user_file else None
        return workspace / self.project_file if self.project_file else None

    def instructions_file(self, scope: str, workspace: Path) -> Path | None:
        if scope == USER:
            return self.user_instructions() if self.user_instructions else None
        return workspace / self.project_instructions if self.project_instructions else None

    def entry(self, command: list[str], workspace: Path) -> dict[str, object]:
        """The server entry: `command` plus `serve` and, when needed, `--workspace`."""
        entry: dict[str, object] = {"type": self.entry_type} if self.entry_type else {}
        entry["command"] = command[0]
        entry["args"] = [*command[1:], *serve_args(self.workspace, workspace)]
        return entry

    def detect(self, workspace: Path) -> str | None:
        """Why this agent counts as present (a config folder, a CLI on PATH), or None."""
        for marker in self.user_markers():
            if marker.exists():
                return f"{marker} exists"
        for marker in self.project_markers:
            if (workspace / marker).exists():
                return f"{workspace / marker} exists"
        for executable in self.executables:
            found = shutil.which(executable)
            if found:
                return f"'{executable}' is on PATH ({found})"
        return None


def serve_args(how: str, workspace: Path) -> list[str]:
    if how == EXPANDS_VARIABLE:
        return ["serve", "--workspace", WORKSPACE_VARIABLE]
    if how == PINNED:
        return ["serve", "--workspace", str(workspace)]
    return ["serve"]


def _home() -> Path:
    return Path.home()


def _xdg_config() -> Path:
    return xdg_base("XDG_CONFIG_HOME", ".config", home=_home())


def claude_folder() -> Path:
    """Claude Code's user folder: `$CLAUDE_CONFIG_DIR` when set, else `~/.claude`.

    The variable replaces `~/.claude` itself, and `.claude.json` moves inside it: "If you set
    CLAUDE_CONFIG_DIR, every ~/.claude path ... lives under that directory instead"
    (code.claude.com/docs/en/claude-directory); `claude mcp list` under
    `CLAUDE_CONFIG_DIR=$T/cfg` writes `$T/cfg/.claude.json`. The meter reads it the same way
    (`meter/claude.py`), and so does the status line (`install/statusline.py`).
    """
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return Path(configured).expanduser() if configured else _home() / ".claude"


def claude_user_file() -> Path:
    """Where Claude Code keeps user-scope MCP servers: `.claude.json` in `$CLAUDE_CONFIG_DIR`,
    else in the home folder (beside `~/.claude`, not in it)."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return (Path(configured).expanduser() if configured else _home()) / ".claude.json"


def _codex_home() -> Path:
    # CODEX_HOME moves ~/.codex (https://developers.openai.com/codex/environment-variables).
    return Path(os.environ.get("CODEX_HOME") or _home() / ".codex")


def _vscode_user() -> Path:
    # Electron's appData: $XDG_CONFIG_HOME (or ~/.config) on Linux, Application Support on macOS.
    if sys.platform == "darwin":
        return _home() / "Library" / "Application Support" / "Code"
    return _xdg_config() / "Code"


REGISTRY: dict[str, Agent] = {
    # Claude Code: project servers in .mcp.json at the root, user servers in ~/.claude.json under
    # "mcpServers"; stdio entries are {"type": "stdio", "command", "args"}. It starts servers in
    # the project folder. https://code.claude.com/docs/en/mcp (sections "MCP installation
    # scopes" and "Project scope"); instructions: https://code.claude.com/docs/en/memory
    "claude": Agent(
        name="claude",
        title="Claude Code",
        docs="https://code.claude.com/docs/en/mcp",
        file_format="json",
        servers_key=("mcpServers",),
        user_file=claude_user_file,
        project_file=".mcp.json",
        entry_type="stdio",
        workspace=STARTS_IN_PROJECT,
        allows_comments=False,
        user_markers=lambda: (claude_user_file(), claude_folder()),
        executables=("claude",),
        project_markers=(".mcp.json", ".claude"),
        user_instructions=lambda: claude_folder() / "CLAUDE.md",
        project_instructions="CLAUDE.md",
    ),
    # OpenAI Codex CLI: TOML, one [mcp_servers.<name>] table with command and args, in
    # ~/.codex/config.toml (or .codex/config.toml in a trusted project,
    # https://developers.openai.com/codex/config-basic). It starts servers in its own working
    # directory, the project. https://developers.openai.com/codex/mcp
    # Instructions: AGENTS.md (https://developers.openai.com/codex/guides/agents-md).
    "codex": Agent(
        name="codex",
        title="OpenAI Codex CLI",
        docs="https://developers.openai.com/codex/mcp",
        file_format="toml",
        servers_key=("mcp_servers",),
        user_file=lambda: _codex_home() / "config.toml",
        project_file=".codex/config.toml",
        entry_type=None,
        workspace=STARTS_IN_PROJECT,
        allows_comments=True,
        user_markers=lambda: (_codex_home(),),
        executables=("codex",),
        project_markers=(".codex",),
        user_instructions=lambda: _codex_home() / "AGENTS.md",
        project_instructions="AGENTS.md",
    ),
    # Cursor: "mcpServers" in .cursor/mcp.json (project) or ~/.cursor/mcp.json (global).
    # https://docs.cursor.com/context/model-context-protocol . It starts user-level servers in
    # the home folder but expands ${workspaceFolder} in args (vectorize-io/hindsight#4530
    # verified this live).
    "cursor": Agent(
        name="cursor",
        title="Cursor",
        docs="https://docs.cursor.com/context/model-context-protocol",
        file_format="json",
        servers_key=("mcpServers",),
        user_file=lambda: _home() / ".cursor" / "mcp.json",
        project_file=".cursor/mcp.json",
        entry_type=None,
        workspace=EXPANDS_VARIABLE,
        allows_comments=False,
        user_markers=lambda: (_home() / ".cursor",),
        executables=("cursor", "cursor-agent"),
        project_markers=(".cursor",),
        project_instructions="AGENTS.md",
    ),
    # VS Code (Copilot agent mode): "servers" in .vscode/mcp.json or the profile's mcp.json;
    # stdio entries need "type": "stdio"; the file is JSONC; ${workspaceFolder} is expanded,
    # and servers otherwise start in the home folder (microsoft/vscode#250078).
    # https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
    "vscode": Agent(
        name="vscode",
        title="VS Code",
        docs="https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
        file_format="json",
        servers_key=("servers",),
        user_file=lambda: _vscode_user() / "User" / "mcp.json",
        project_file=".vscode/mcp.json",
        entry_type="stdio",
        workspace=EXPANDS_VARIABLE,
        allows_comments=True,
        user_markers=lambda: (_vscode_user(),),
        executables=("code",),
        project_markers=(".vscode",),
        project_instructions="AGENTS.md",
    ),
    # Continue: one file per server in .continue/mcpServers/ (project) or
    # ~/.continue/mcpServers/ (user); JSON files in Claude's {"mcpServers": {...}} shape are
    # read as they are. https://docs.continue.dev/customize/deep-dives/mcp ; the user folder
    # is scanned too (core/context/mcp/json/loadJsonMcpConfigs.ts, continuedev/continue#12254).
    # Its working directory for servers is not documented, so the workspace is pinned.
    "continue": Agent(
        name="continue",
        title="Continue",
        docs="https://docs.continue.dev/customize/deep-dives/mcp",
        file_format="json",
        servers_key=("mcpServers",),
        user_file=lambda: _home() / ".continue" / "mcpServers" / "wherein.json",
        project_file=".continue/mcpServers/wherein.json",
        entry_type=None,
        workspace=PINNED,
        allows_comments=False,
        user_markers=lambda: (_home() / ".continue",),
        executables=("cn",),
        project_markers=(".continue",),
    ),
    # Gemini CLI: "mcpServers" in ~/.gemini/settings.json or .gemini/settings.json; comments are
    # allowed (google-gemini/gemini-cli#422); servers start in its working directory.
    # https://geminicli.com/docs/tools/mcp-server/ , https://geminicli.com/docs/cli/configuration
    "gemini": Agent(
        name="gemini",
        title="Gemini CLI",
        docs="https://geminicli.com/docs/tools/mcp-server/",
        file_format="json",
        servers_key=("mcpServers",),
        user_file=lambda: _home() / ".gemini" / "settings.json",
        project_file=".gemini/settings.json",
        entry_type=None,
        workspace=STARTS_IN_PROJECT,
        allows_comments=True,
        user_markers=lambda: (_home() / ".gemini",),
        executables=("gemini",),
        project_markers=(".gemini",),
    ),
    # Windsurf (Cascade): "mcpServers" in ~/.codeium/windsurf/mcp_config.json, user level only;
    # no workspace variable is documented, so the workspace is pinned.
    # https://docs.windsurf.com/windsurf/cascade/mcp
    "windsurf": Agent(
        name="windsurf",
        title="Windsurf",
        docs="https://docs.windsurf.com/windsurf/cascade/mcp",
        file_format="json",
        servers_key=("mcpServers",),
        user_file=lambda: _home() / ".codeium" / "windsurf" / "mcp_config.json",
        project_file=None,
        entry_type=None,
        workspace=PINNED,
        allows_comments=False,
        user_markers=lambda: (_home() / ".codeium" / "windsurf",),
        executables=("windsurf",),
    ),
    # Zed: "context_servers" in its settings.json (JSONC): ~/.config/zed/settings.json, honouring
    # $XDG_CONFIG_HOME, or .zed/settings.json in a project. https://zed.dev/docs/ai/mcp ,
    # https://zed.dev/docs/configuring-zed . It may start servers in "/" after a restart
    # (zed-industries/zed#60879), so the workspace is pinned.
    "zed": Agent(
        name="zed",
        title="Zed",
        docs="https://zed.dev/docs/ai/mcp",
        file_format="json",
        servers_key=("context_servers",),
        user_file=lambda: _xdg_config() / "zed" / "settings.json",
        project_file=".zed/settings.json",
        entry_type=None,
        workspace=PINNED,
        allows_comments=True,
        user_markers=lambda: (_xdg_config() / "zed",),
        executables=("zed", "zeditor"),
        project_markers=(".zed",),
        project_instructions="AGENTS.md",
    ),
}
