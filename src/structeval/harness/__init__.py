"""The evaluation harness behind ``python run_eval.py``: prompts (en, zh), API transport
with retries and parameter negotiation, the response cache, answer extraction and
grading, the repair loop, traces, resume, provenance and cost, rescoring and summaries.

Formats of ``run.json``, ``trace.jsonl`` and ``results.json`` are documented in
``RUN_FORMAT.md`` beside this module.
"""

from .answers.extract import Extraction, extract_json
from .answers.grading import STAGES, Grade, grade_answer
from .client.transport import ChatReply, ChatTransport, ServiceFatal, ServiceUnavailable
from .common.settings import PROMPT_TYPES, GradingSettings, RetryPolicy, TransportSettings
from .inputs.prompts import LANGUAGES, MODALITIES, repair_text, system_prompt, task_text
from .run.rescore import RescoreError, rescore_run
from .run.response_cache import ResponseCache
from .run.results import TaskResult, summarize
from .run.runner import RunDirError, Session, SessionOutcome

__all__ = [
    "LANGUAGES", "MODALITIES", "PROMPT_TYPES", "STAGES", "ChatReply", "ChatTransport",
    "Extraction", "Grade", "GradingSettings", "RescoreError", "ResponseCache", "RetryPolicy",
    "RunDirError", "ServiceFatal", "ServiceUnavailable", "Session", "SessionOutcome",
    "TaskResult", "TransportSettings", "extract_json", "grade_answer", "repair_text",
    "rescore_run", "summarize", "system_prompt", "task_text",
]
