/**
 * The commit guard: a Spring {@code TransactionExecutionListener} that refuses to commit a transaction whose
 * thread holds a distributed lock that is lost, or whose confirmed lease ends before the commit could finish.
 */
@NullMarked
package io.github.distributedlock.transaction;

import org.jspecify.annotations.NullMarked;
