"""The `wherein` command (`python -m wherein.cli`): one module per group of commands."""

from wherein.blas_threads import one_thread_from_the_start

one_thread_from_the_start()  # before anything below imports numpy

from wherein.cli.app import main  # noqa: E402

__all__ = ["main"]
