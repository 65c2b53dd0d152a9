/* SPDX-License-Identifier: MIT */
/*
 * fail-nth, the syzkaller way: writing N to /proc/thread-self/fail-nth
 * makes the Nth fault-injection point this thread passes fail; with
 * CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC, every slab and page
 * allocation.  Reading it back gives 0 once the failure was injected,
 * the points still to go otherwise.
 */
#ifndef FAILNTH_H
#define FAILNTH_H

/*
 * Open this thread's fail-nth and set failslab's and fail_page_alloc's
 * debugfs knobs for it (every allocation may fail, quietly), or skip;
 * failnth_teardown() (or exit) puts them back.
 */
void failnth_setup(void);
void failnth_teardown(void);
/* Make the @n-th fault-injection point of this thread fail. */
void failnth_arm(unsigned int n);
/* Clear fail-nth; what was left of it: 0 if a failure was injected. */
unsigned int failnth_disarm(void);

#endif /* FAILNTH_H */
