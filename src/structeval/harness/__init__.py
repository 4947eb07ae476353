"""The evaluation harness behind ``python run_eval.py``: prompts, API transport with
retries, answer extraction and grading, the repair loop, traces, resume and summaries.

Formats of ``run.json``, ``trace.jsonl`` and ``results.json`` are documented in
``RUN_FORMAT.md`` beside this module.
"""

from .extract import Extraction, extract_json
from .grading import STAGES, Grade, grade_answer
from .prompts import repair_text, system_prompt, task_text
from .results import TaskResult, summarize
from .runner import RunDirError, Session, SessionOutcome
from .settings import PROMPT_TYPES, GradingSettings, RetryPolicy, TransportSettings
from .transport import ChatReply, ChatTransport, ServiceFatal, ServiceUnavailable

__all__ = [
    "PROMPT_TYPES", "STAGES", "ChatReply", "ChatTransport", "Extraction", "Grade",
    "GradingSettings", "RetryPolicy", "RunDirError", "ServiceFatal", "ServiceUnavailable",
    "Session", "SessionOutcome", "TaskResult", "TransportSettings", "extract_json",
    "grade_answer", "repair_text", "summarize", "system_prompt", "task_text",
]
