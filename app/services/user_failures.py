"""What a scheduled job over every user does when one user fails: log it, count it, go on with
the next user (the job does not mark the user done, so its next run retries them); and stop the
run when the database stays unavailable for several users in a row (it is down, not their data)."""

from __future__ import annotations

import logging

from app import metrics
from app.errors import DomainError, Unavailable

log = logging.getLogger(__name__)

UNAVAILABLE_IN_A_ROW = 3


class UserFailures:
    """The failures of one run of a job over users."""

    def __init__(self, job: str) -> None:
        self.job = job
        self.count = 0
        self._unavailable_in_a_row = 0

    def failed(self, user_id: str, error: Exception) -> None:
        """Logs and counts a user's failure; re-raises it when the database has now been
        unavailable for UNAVAILABLE_IN_A_ROW users in a row."""
        self.count += 1
        metrics.JOB_USER_FAILURES.labels(self.job).inc()
        if isinstance(error, Unavailable):
            self._unavailable_in_a_row += 1
            log.warning("scheduled %s failed for user %s: %s", self.job, user_id, error)
            if self._unavailable_in_a_row >= UNAVAILABLE_IN_A_ROW:
                raise error
            return
        self._unavailable_in_a_row = 0
        if isinstance(error, DomainError):  # the user's state (a branch gone), not a bug
            log.warning("scheduled %s skipped user %s: %s", self.job, user_id, error)
        else:
            log.error("scheduled %s failed for user %s", self.job, user_id, exc_info=error)

    def succeeded(self) -> None:
        self._unavailable_in_a_row = 0
