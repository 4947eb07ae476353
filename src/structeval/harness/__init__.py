"""The evaluation harness behind ``python run_eval.py``: prompts (en, zh), API transport
with retries and parameter negotiation, the response cache, answer extraction and
grading, the repair loop, traces, resume, provenance and cost, rescoring and summaries.

Formats of ``run.json``, ``trace.jsonl`` and ``results.json`` are documented in
``RUN_FORMAT.md`` beside this module.
"""

from .extract import Extraction, extract_json
from .grading import STAGES, Grade, grade_answer
from .prompts import LANGUAGES, MODALITIES, repair_text, system_prompt, task_text
from .rescore import RescoreError, rescore_run
from .response_cache import ResponseCache
from .results import TaskResult, summarize
from .runner import RunDirError, Session, SessionOutcome
from .settings import PROMPT_TYPES, GradingSettings, RetryPolicy, TransportSettings
from .transport import ChatReply, ChatTransport, ServiceFatal, ServiceUnavailable

__all__ = [
    "LANGUAGES", "MODALITIES", "PROMPT_TYPES", "STAGES", "ChatReply", "ChatTransport",
    "Extraction", "Grade", "GradingSettings", "RescoreError", "ResponseCache", "RetryPolicy",
    "RunDirError", "ServiceFatal", "ServiceUnavailable", "Session", "SessionOutcome",
    "TaskResult", "TransportSettings", "extract_json", "grade_answer", "repair_text",
    "rescore_run", "summarize", "system_prompt", "task_text",
]
