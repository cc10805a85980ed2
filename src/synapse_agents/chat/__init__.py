"""Chat turns: run one turn of an agent, yield its events, record it, replay the conversation.

See docs/chat.md. `engine.ChatEngine` runs turns against a store; a `request.TurnRequest` says what
to run (a `TurnTarget`: an agent with the facts discovery found about it) and how; the turn yields
pydantic-ai's events plus Synapse's (`synapse_agents.events`); `recorder.Recorder` is the per-run
recording capability. The package imports none of them itself, so that loading the playground's
plugin (`chat.plugin`) for the command line costs nothing.
"""
