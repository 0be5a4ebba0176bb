/*
 * The Redis store's local queue (one client's threads waiting for one exclusive lock), model-checked with SPIN.
 * See docs/verification.md.
 *
 * Java (lock-spring-boot-autoconfigure/src/main/java/io/github/distributedlock/redis/):
 *   LocalQueue.take          a thread joins: the head at once if the queue is free (HEAD_NOW), BYPASS_NOW if the
 *                            head is known lost, else a waiter at the tail (Acquisition.acquireNew)
 *   LocalQueue.cancel / end  a waiter gives up (its deadline, or its owner cancels): only while WAITING
 *   LocalQueue.reserveNext   the head, releasing, takes the first waiter out for a hand-over (HoldReleaser
 *                            .releaseInRedis, unless the hold is known lost)
 *   LocalQueue.handedOver    Redis moved the lock to the reserved waiter: its turn is the hand-over
 *   LocalQueue.leave         the head leaves without a hand-over (after its release, or giving up in Redis:
 *                            HoldReleaser.leaveQueueOf, Acquisition.leave): the reserved or first waiter becomes
 *                            the head and acquires in Redis
 *   LocalQueue.headLost      the head's hold is known lost (Hold.releaseLocalWaiters, from the watchdog, only
 *                            while the hold is not released): the waiters go to Redis on their own (bypass, after
 *                            the timer) and new owners do not queue
 *   Waiter.complete          a turn is a CompletableFuture: the first completion wins
 * Redis (lock-spring-boot-autoconfigure/src/main/resources/io/github/distributedlock/redis/):
 *   reentrant_acquire_head.lua / reentrant_acquire.lua   the head (or a bypassed owner) takes the key when free
 *   reentrant_release.lua    the last release passes the lock on: to another instance waiting in Redis if any,
 *                            else to the reserved local waiter (ARGV[4], the hand-over), else frees it; "not held"
 *                            (nothing changes) when the releasing attempt no longer holds the key
 *
 * Abstractions: 3 threads of one client (Thread), ATT acquisitions each, one attempt id per acquisition; another
 * instance (Other) that waits in Redis for the lock once; the key may be wiped under its holder (World: its lease
 * ran out, a restart, force-release: MAXW per run), and the holder's watchdog may then tell it lost; a holder known
 * lost may hang for ever (a stuck thread: the case the bypass is for). Each queue method runs under the queue's
 * monitor: one atomic step; a Redis script is one atomic step; the reply of a release is handled in a later step.
 * Not modelled: the hard lease's holderDeadline (a hold without auto-renew: its bypass works as headLost's), re-entry,
 * holdAtLeast, the read/write and semaphore kinds (the write side queues as the reentrant lock does).
 *
 * Properties (assertions; (e) LTL with weak fairness):
 *   FIFO       a waiter is granted (HEAD by leave, or a hand-over) only when no waiter that joined before it still
 *              waits;
 *   WITHDRAWN  a waiter that gave up is never granted, neither by the queue nor in Redis by a hand-over;
 *   ONE        at most one holder in its body whose key Redis still has (the other instance included), and the
 *              queue has a head exactly when it is taken (one head at most);
 *   (e)        LIVENESS: no timeouts; a thread that joins gets the lock: [] (want[t] -> <> !want[t]).
 * Negative controls: GRANT_TAIL (reserveNext/leave take the last waiter), NO_WITHDRAW_CHECK (end() checks that the
 * turn is not yet completed instead of the state WAITING: a reserved waiter may still give up), NO_BYPASS (headLost
 * does nothing: the waiters of a lost, stuck head wait for ever; refutes (e)).
 */

#define NT 3
#ifndef ATT
#define ATT 1          /* acquisitions per thread */
#endif
#ifndef MAXW
#define MAXW 1         /* keys wiped under their holder, per run */
#endif
#ifndef OTHERS
#define OTHERS 1       /* 1: another instance wants the lock once */
#endif
#define OTHER 4        /* its id as Redis' owner */

/* waiter states (LocalQueue.Waiter) */
#define NONE 0
#define WAITING 1
#define RESERVED 2
#define HANDED 3
#define HEADST 4
#define CANCELLED 5
/* turns (LocalTurn) */
#define T_HEAD 1
#define T_HANDED 2
#define T_BYPASS 3
#define T_WITHDRAWN 4  /* TIMED_OUT or CANCELLED */
/* replies of the release */
#define R_HANDED 1
#define R_PASSED 2     /* freed, or granted to the other instance */
#define R_NOTHELD 3

/* ---- the queue (LocalQueue) ---- */
byte q[NT];            /* waiters, first come first: thread id + 1 */
byte qlen = 0;
bool taken = 0;        /* some owner is the head */
bool deadlinePassed = 0;   /* holderDeadline set and passed: the head is known lost */
bool bypassArmed = 0;  /* the bypass timer is scheduled */
byte st[NT];           /* each thread's waiter state */
byte turn[NT];         /* each thread's turn: 0 until completed */

/* ---- Redis ---- */
byte rowner = 0;       /* the key's owner: 0 free, thread id + 1, OTHER */
bool otherWaits = 0;   /* the other instance waits in Redis */
byte wipes = 0;

/* ---- ghost ---- */
byte seq[NT];          /* when each waiter joined */
byte nseq = 0;
bool withdrawn[NT];    /* its owner gave up (its turn completed TIMED_OUT or CANCELLED) */
bool isHead[NT];
bool inBody[NT];
bool wiped[NT];        /* its key was wiped under it */
bool otherBody = 0;
bool want[NT];         /* (e): joined, not yet in its body */

#define NOHEAD (!isHead[0] && !isHead[1] && !isHead[2])
#define EARLIER(v, w) (st[v] == WAITING && seq[v] < seq[w])

/* the checks of every grant to thread w */
inline granting(w) {
  assert(!EARLIER(0, w) && !EARLIER(1, w) && !EARLIER(2, w));   /* FIFO */
  assert(!withdrawn[w] && turn[w] == 0)                          /* WITHDRAWN: by the queue */
}

/* Waiter.complete: the first completion wins */
inline complete(w, tn) {
  if
  :: turn[w] == 0 -> turn[w] = tn; if :: tn == T_WITHDRAWN -> withdrawn[w] = 1 :: else -> skip fi
  :: else -> skip
  fi
}

/* takes the first waiter out (ArrayDeque.pollFirst): x = thread id + 1, 0 if none */
inline pollFirst(x) {
  if
  :: qlen == 0 -> x = 0
  :: else ->
#ifdef GRANT_TAIL
     x = q[qlen - 1]; q[qlen - 1] = 0;                   /* negative control: the last one */
#else
     x = q[0]; q[0] = q[1]; q[1] = q[2]; q[2] = 0;
#endif
     qlen--
  fi
}

/* removes waiter x (thread id + 1), keeping the order (ArrayDeque.remove) */
inline removeQ(x) {
  k = 0;
  do
  :: k < qlen && q[k] != x -> k++
  :: k < qlen && q[k] == x ->
     do
     :: k + 1 < qlen -> q[k] = q[k + 1]; k++
     :: else -> break
     od;
     q[qlen - 1] = 0; qlen--; break
  :: k >= qlen -> break
  od;
  k = 0
}

/* LocalQueue.end (cancel, or the deadline): only a WAITING waiter gives up; a reserved one is being handed the lock */
inline endWait(t) {
#ifdef NO_WITHDRAW_CHECK
  if :: turn[t] == 0 ->                                   /* negative control: "its turn has not come yet" */
#else
  if :: st[t] == WAITING ->
#endif
     removeQ(t + 1); st[t] = CANCELLED; complete(t, T_WITHDRAWN)
  :: else -> skip
  fi
}

/* LocalQueue.leave(reserved): r the reserved waiter + 1, or 0; the next waiter becomes the head */
inline leave(r) {
  deadlinePassed = 0; bypassArmed = 0;                    /* clearHolderDeadline */
  isHead[t] = 0;
  if :: r != 0 -> x = r :: else -> pollFirst(x) fi;
  if
  :: x == 0 -> taken = 0
  :: else ->
     granting(x - 1); assert(NOHEAD);
     st[x - 1] = HEADST; isHead[x - 1] = 1; complete(x - 1, T_HEAD)
  fi;
  x = 0
}

/* LocalQueue.headLost: the waiters go to Redis (after the bypass timer); new owners do not queue */
inline headLost() {
#ifndef NO_BYPASS
  deadlinePassed = 1;
  bypassArmed = (qlen > 0)
#else
  skip                                                    /* negative control: the loss does not free the waiters */
#endif
}

proctype Thread(byte t) {
  byte x, k, res, att = 0;
  bool head, lostKnown, gaveUp;

again:
  /* LocalQueue.take (Acquisition.acquireNew) */
  atomic {
    want[t] = 1; st[t] = NONE; turn[t] = 0; withdrawn[t] = 0;
    if
    :: !taken -> taken = 1; assert(NOHEAD); isHead[t] = 1; st[t] = HEADST; turn[t] = T_HEAD      /* HEAD_NOW */
    :: taken && deadlinePassed -> turn[t] = T_BYPASS                                              /* BYPASS_NOW */
    :: taken && !deadlinePassed ->
       q[qlen] = t + 1; qlen++; st[t] = WAITING; nseq++; seq[t] = nseq
    fi
  }
  /* waiting for the turn; or giving up once (the deadline, or the owner's cancel: LocalQueue.cancel) */
  do
  :: turn[t] != 0 -> break
#ifndef LIVENESS
  :: atomic { !gaveUp && turn[t] == 0 -> gaveUp = 1; endWait(t) }
#endif
  od;
  /* Acquisition.onTurn */
  if
  :: turn[t] == T_WITHDRAWN -> want[t] = 0; goto done
  :: turn[t] == T_HANDED -> head = 1; goto hold           /* owns the lock in Redis already */
  :: turn[t] == T_HEAD -> head = 1
  :: turn[t] == T_BYPASS -> head = 0
  fi;
  /* Acquisition.waitInRedis: acquires in Redis (reentrant_acquire_head.lua), tries again until the key is free,
     or gives up (its deadline): Acquisition.leave passes the head on */
  do
  :: atomic { rowner == 0 -> rowner = t + 1; wiped[t] = 0 }; break
#ifndef LIVENESS
  :: atomic { head -> leave(0); head = 0; want[t] = 0 }; goto done
  :: atomic { !head -> want[t] = 0 }; goto done
#endif
  od;

hold:
  atomic {
    inBody[t] = 1; want[t] = 0;
    assert(turn[t] != T_WITHDRAWN && !withdrawn[t])      /* WITHDRAWN: a thread that gave up never holds */
  }
  /* the body; meanwhile the key may be wiped (World) and the watchdog tell the hold lost (LeaseRenewalWatch,
     Hold.releaseLocalWaiters: LocalQueue.headLost while the hold is the head and not released); a thread known
     lost may hang for ever */
  do
  :: atomic { wiped[t] && !lostKnown -> lostKnown = 1; if :: head -> headLost() :: else -> skip fi }
  :: lostKnown -> false                                   /* stuck for ever */
  :: break
  od;
  /* HoldReleaser.releaseInRedis: the hold is released; the head reserves the next waiter for a hand-over, unless
     the hold is known lost (LocalQueue.reserveNext) */
  atomic {
    inBody[t] = 0;
    if
    :: head && !lostKnown -> pollFirst(x); if :: x != 0 -> st[x - 1] = RESERVED :: else -> skip fi
    :: else -> x = 0
    fi
  }
  /* reentrant_release.lua: only the holder's release acts; the lock goes to another instance waiting in Redis,
     else to the reserved waiter (hand-over), else it is freed */
  atomic {
    if
    :: rowner == t + 1 ->
       if
       :: otherWaits -> rowner = OTHER; res = R_PASSED
       :: !otherWaits && x != 0 ->
          assert(!withdrawn[x - 1]);                      /* WITHDRAWN: never handed the lock in Redis */
          rowner = x; wiped[x - 1] = 0; res = R_HANDED
       :: !otherWaits && x == 0 -> rowner = 0; res = R_PASSED
       fi
    :: else -> res = R_NOTHELD
    fi
  }
  /* the reply: LocalQueue.handedOver, or LocalQueue.leave(reserved) (HoldReleaser.leaveQueueOf) */
  atomic {
    if
    :: res == R_HANDED ->
       deadlinePassed = 0; bypassArmed = 0;               /* clearHolderDeadline */
       isHead[t] = 0; granting(x - 1); assert(NOHEAD);
       st[x - 1] = HANDED; isHead[x - 1] = 1; complete(x - 1, T_HANDED)
    :: res != R_HANDED && head -> leave(x)
    :: else -> skip
    fi;
    x = 0; res = 0; head = 0; lostKnown = 0
  }
done:
  atomic {
    gaveUp = 0; att++;
    if
    :: att < ATT -> goto again
    :: else -> st[t] = NONE; turn[t] = 0; att = 0
    fi
  }
}

/* another instance: waits in Redis, is granted the lock by a release or takes it when free, releases it */
active proctype Other() {
  if
  :: OTHERS > 0 ->
     otherWaits = 1;
     do
     :: atomic { rowner == 0 && otherWaits -> rowner = OTHER; otherWaits = 0; otherBody = 1 }; break
     :: atomic { rowner == OTHER && otherWaits -> otherWaits = 0; otherBody = 1 }; break   /* granted */
     od;
     atomic { otherBody = 0; rowner = 0 }
  :: else -> skip
  fi
}

/* the key is wiped under its holder (its lease ran out unrenewed, a restart, force-release) */
active proctype World() {
end:
  do
  :: atomic { wipes < MAXW && rowner != 0 && rowner != OTHER -> wiped[rowner - 1] = 1; rowner = 0; wipes++ }
  od
}

/* the bypass timer (LocalQueue.scheduleBypass, bypass): every waiter leaves the queue for Redis */
active proctype Timer() {
  byte i;
end:
  do
  :: atomic {
       bypassArmed -> bypassArmed = 0;
       if
       :: deadlinePassed ->
          for (i : 0 .. NT - 1) {
            if
            :: i < qlen -> st[q[i] - 1] = CANCELLED; complete(q[i] - 1, T_BYPASS); q[i] = 0
            :: else -> skip
            fi
          };
          qlen = 0
       :: else -> skip
       fi;
       i = 0
     }
  od
}

/* ONE: at most one holder in its body whose key Redis still has; the queue has a head exactly while taken */
#define H(t) (inBody[t] && !wiped[t])
#define TWO ((H(0) && H(1)) || (H(0) && H(2)) || (H(1) && H(2)) || (otherBody && (H(0) || H(1) || H(2))))
#define HEADS (isHead[0] + isHead[1] + isHead[2])
#define BAD (TWO || (taken && HEADS != 1) || (!taken && HEADS != 0))
active proctype Monitor() {
end:
  atomic { BAD -> assert(!BAD) }
}

#ifdef LIVENESS
/* (e): a thread that joins the queue gets the lock (no timeouts): with weak fairness (pan -f) */
ltl e { [] ((want[0] -> <> !want[0]) && (want[1] -> <> !want[1]) && (want[2] -> <> !want[2])) }
#endif

init {
  atomic { run Thread(0); run Thread(1); run Thread(2) }
}
