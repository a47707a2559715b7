"""The daily verbs on the kernel (supersede, challenge and defend, editing in place,
summaries) and the change log."""
