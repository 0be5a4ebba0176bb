/*
 * The Redis store's reentrant lock (one key), model-checked with SPIN. See docs/verification.md.
 *
 * Scripts (lock-spring-boot-autoconfigure/src/main/resources/io/github/distributedlock/redis/):
 *   reentrant_acquire_head.lua + reentrant_acquire.lua   ACQ: grant a free key, or this attempt's own field again
 *   reentrant_renew.lua                                  RENEW: extend only the owner's lease
 *   reentrant_release_head.lua + reentrant_release.lua   REL: delete only the owner's hold
 *   reentrant_cancel.lua                                 CANCEL: the withdrawal of an attempt that gave up
 *   fence.lua                                            the token handed out with every grant
 *   fenced_write.lua                                     the storage (FencedRedis; FencedJdbc alike)
 *   server_life.lua                                      the server-life marker (`life`)
 * Java (lock-spring-boot-autoconfigure/src/main/java/io/github/distributedlock/redis/):
 *   HoldAcquirer / Acquisition / Attempt   one attempt id per acquisition; a failed round trip is tried again with
 *                                          the same id; an attempt that gives up withdraws (WithdrawalSender)
 *   LeaseRenewer / LeaseRenewalWatch / LeaseEndCheck   the watchdog; a hold is lost when its confirmed lease ends
 *   HoldReleaser / ReleaseReplayCheck / ServerLife / ConnectionBreaks   release; "not held" after a reconnect
 *
 * Abstractions:
 * - time is relative: a tick lowers every remaining lease by one (the key's TTL in Redis, each thread's confirmed
 *   lease, the lease a pending request would confirm); a lease is L ticks; the key vanishes when its TTL reaches 0.
 *   Ticks come at any moment, unboundedly often: every process may be paused for any number of ticks (GC,
 *   kill -STOP), between any two of its steps;
 * - a thread is a process with one acquisition attempt; each thread talks to Redis over a FIFO channel of its own
 *   (more interleavings than one shared connection gives);
 * - Redis runs each script atomically (one atomic block);
 * - faults, MAXF in all per run: a command lost on the wire, a reply lost, a command run twice (Lettuce re-sends
 *   it after a reconnect: the first run's reply is lost and the second run comes later, before anything the
 *   connection sends after it), a client timeout while the command is still on its way (it runs late); MAXR Redis
 *   restarts without persistence (every key wiped, a new server life, every connection broken); with EVICTION, one
 *   maxmemory eviction of the lock's key;
 * - a fencing token is Redis TIME (`clk`): it rises with every grant and survives restarts (a server clock never set
 *   back: the documented limit of fence.lua). So fence_pass's "last + 1" branch is never needed here and the hash's
 *   '~f' field is left out.
 * Not modelled: the queue of waiters in Redis and its grant messages (a waiter here tries again: the fallback retry
 *   after a lost notification), the local hand-over between threads of one client, re-entry, holdAtLeast, the
 *   read/write lock and the semaphore (see docs/verification.md).
 *
 * Properties: (a) the Monitor; (b) the asserts at a grant and in the fenced write; (c) the asserts in RENEW, REL
 * and CANCEL; (d) the assert at the end of a thread; (e) redis_lock_live.pml.
 * Negative controls (SPIN must find a counterexample): NO_OWNER_CHECK, SHARED_OWNER_ID (NT=3), NO_FENCING,
 * EVICTION, NO_LIFE_MARKER.
 */

#ifdef LIVENESS
/* (e): no faults, no restart; a waiter tries again until it holds the lock (its acquire timeout is not modelled) */
#define MAXF 0
#define MAXR 0
#endif
#ifndef L
#define L 2          /* lease, in ticks */
#endif
#ifndef MAXF
#define MAXF 2       /* network faults in a run */
#endif
#ifndef MAXR
#define MAXR 1       /* Redis restarts in a run */
#endif
#ifndef MAXREN
#define MAXREN 1     /* watchdog renewals per hold */
#endif
#ifndef MAXTRY
#define MAXTRY 2     /* tries of one acquisition attempt (after a failed round trip, or a refusal) */
#endif
#ifndef NT
#define NT 2         /* threads, one attempt each. 2: thread 0 of client 0, thread 1 of client 1;
                        3: threads 0 and 1 of client 0, thread 2 of client 1 */
#endif
#define NONE 255

#if NT == 3
#define CLIENT(t) ((t) < 2 -> 0 : 1)
#else
#define CLIENT(t) (t)
#endif

/* the owner id Redis records, "<client id>:<thread id>/<attempt>": one per attempt (Attempt.java) */
#ifdef SHARED_OWNER_ID
#define ID(t) (CLIENT(t) + 1)          /* negative control: all threads of a client send one id */
#else
#define ID(t) ((t) + 1)
#endif

mtype = { ACQ, RENEW, REL, CANCEL };

/* results */
#define GRANTED  1
#define REFUSED  2
#define RENEWED  3
#define GONE     4      /* renewal: 0; release: -1 ("not held") */
#define RELEASED 5
#define TIMEOUT  6

/* ---- Redis: one lock key ---- */
byte owner = 0;        /* the hash's owner field; 0: the key does not exist */
byte ttl = 0;          /* its TTL, in ticks */
byte clk = 0;          /* Redis TIME: the last token handed out; survives restarts */
byte life = 1;         /* server_life.lua's marker: another value after every restart */

/* ---- the world ---- */
byte faults = 0;
byte restarts = 0;
byte evictions = 0;

chan toR[NT] = [2] of { mtype, byte };             /* command, request number */
chan rep[NT] = [2] of { byte, byte, byte, byte };  /* request number, result, token, life */
mtype reK[NT];         /* a command Lettuce re-sends after a reconnect (runs before the rest of its connection) */
byte reS[NT];
bool pendBreak[NT];    /* a restart broke the thread's connection; its client may not have noticed yet */
bool broke[NT];        /* ConnectionBreaks: a break was counted since the thread's last request was sent */

/* ---- the storage that checks fencing tokens (fenced_write.lua) ---- */
byte high = 0;         /* the greatest token accepted */

/* ---- the threads' clocks (System.nanoTime() deadlines, as ticks left) ---- */
byte valid[NT];        /* ticks left of the confirmed lease (Hold.confirmedUntil) */
byte pend[NT];         /* ticks left of the lease a confirmation of the pending request would give (sentAt + L) */

/* ---- ghost state, for the properties only ---- */
byte ownerT = NONE;    /* the thread (attempt) the key's hold is for */
byte lastTok = 0;
bool inBody[NT];       /* the thread holds, as it believes, and has not started its release */
bool wiped[NT];        /* its hold was wiped by a restart (the documented limit of a Redis without persistence) */
bool relStarted[NT];
bool earlyEnd[NT];     /* its hold ended before its release started, by something else than that release (d) */

inline holdEnds(x) {
  if
  :: x != NONE && !relStarted[x] -> earlyEnd[x] = 1
  :: else -> skip
  fi
}

inline delKey() {
  owner = 0; ownerT = NONE; ttl = 0
}

/* ---- Redis: runs each script atomically ---- */
active proctype Redis() {
  byte t, s, res, tok, ran;
  mtype k;
end:
  do
  :: atomic {
       /* the next command of thread t: a re-sent one first, else the head of its connection (FIFO) */
       if
       :: reK[0] != 0 -> t = 0; k = reK[0]; s = reS[0]; reK[0] = 0; reS[0] = 0; ran = 3
       :: reK[1] != 0 -> t = 1; k = reK[1]; s = reS[1]; reK[1] = 0; reS[1] = 0; ran = 3
#if NT == 3
       :: reK[2] != 0 -> t = 2; k = reK[2]; s = reS[2]; reK[2] = 0; reS[2] = 0; ran = 3
#endif
       :: reK[0] == 0 && nempty(toR[0]) -> toR[0]?k,s; t = 0; ran = 0
       :: reK[1] == 0 && nempty(toR[1]) -> toR[1]?k,s; t = 1; ran = 0
#if NT == 3
       :: reK[2] == 0 && nempty(toR[2]) -> toR[2]?k,s; t = 2; ran = 0
#endif
       fi;
       if
       :: ran == 0 && faults < MAXF -> faults++; ran = 2      /* lost on the wire: never runs */
       :: true
       fi;
       if
       :: ran == 2 -> skip
       :: else ->
          if
          :: k == ACQ ->
             /* reentrant_acquire_head.lua (a free key: HSET owner 1 ~f token, PEXPIRE lease) and
                reentrant_acquire.lua (this attempt's own field: its earlier try ran and its reply was lost; it holds
                it once, with a new token: fence_next of fence.lua); ARGV[3] = '0', not a re-entry */
             if
             :: owner == 0 || owner == ID(t) ->
                if
                :: owner == 0 -> earlyEnd[t] = 0; wiped[t] = 0
                   /* a new hold: what ended an earlier one of t (a grant t never heard of, its try timed out;
                      this later try runs after it on the same connection) is not this hold's */
                :: owner != 0 && ownerT != t -> holdEnds(ownerT)   /* another attempt's hold (SHARED_OWNER_ID) */
                :: else -> skip
                fi;
                clk++; tok = clk;
                assert(tok > lastTok);                 /* (b) tokens strictly increase across grants */
                lastTok = tok;
                owner = ID(t); ownerT = t; ttl = L;
                res = GRANTED
             :: else -> res = REFUSED                  /* { pttl, 0 }: the waiter tries again */
             fi
          :: k == RENEW ->
             /* reentrant_renew.lua: HEXISTS owner; PEXPIRE, never shortened */
             if
             :: owner == ID(t) ->
                assert(ownerT == t);                   /* (c) never renews another attempt's hold */
                ttl = L;
                res = RENEWED
             :: else -> res = GONE
             fi
          :: k == REL ->
             /* reentrant_release_head.lua: HGET owner (nil: -1); the last hold: DEL */
#ifdef NO_OWNER_CHECK
             if
             :: owner != 0 ->                          /* negative control: deletes the key, whoever holds it */
#else
             if
             :: owner == ID(t) ->
#endif
                assert(ownerT == t);                   /* (c) never releases another attempt's hold */
                delKey();
                res = RELEASED
             :: else -> res = GONE
             fi
          :: k == CANCEL ->
             /* reentrant_cancel.lua: a grant this attempt never heard of is passed on (no waiter here: freed) */
             if
             :: owner == ID(t) ->
                assert(ownerT == t);                   /* (c) never withdraws another attempt's hold */
                holdEnds(ownerT);
                delKey()
             :: else -> skip
             fi;
             res = RELEASED
          fi;
          /* the reply */
          if
          :: ran == 0 && faults < MAXF && k != CANCEL ->
             /* run twice: the connection broke before the reply, Lettuce re-sends the command after the
                reconnect; this run's reply is lost */
             faults++; reK[t] = k; reS[t] = s; broke[t] = 1
          :: faults < MAXF -> faults++                    /* the reply is lost */
          :: nfull(rep[t]) -> rep[t]!s,res,tok,life
          :: full(rep[t]) -> skip                         /* nobody reads it any more */
          fi
       fi;
       t = 0; k = 0; s = 0; res = 0; tok = 0; ran = 0   /* no state kept in locals between steps */
     }
  :: atomic {
       /* a restart without persistence (or FLUSHALL, or a failover to a replica without the key): every key is
          gone, the server's life changes (server_life.lua writes a new marker), every connection breaks */
       restarts < MAXR && owner != 0 -> restarts++;    /* (a restart with no key held changes nothing here) */
       if
       :: ownerT != NONE -> wiped[ownerT] = 1; holdEnds(ownerT)
       :: else -> skip
       fi;
       delKey();
       life++;
       pendBreak[0] = 1; pendBreak[1] = 1;
#if NT == 3
       pendBreak[2] = 1
#endif
     }
#ifdef EVICTION
  :: atomic {
       /* negative control: maxmemory with an evicting policy drops the key (EvictionCheck refuses such a Redis) */
       evictions < 1 && owner != 0 -> evictions++;
       holdEnds(ownerT);
       delKey()
     }
#endif
  od
}

inline tickThread(i) {
  if :: valid[i] > 0 -> valid[i]-- :: else -> skip fi;
  if :: pend[i] > 0 -> pend[i]-- :: else -> skip fi
}

/* ---- time: a tick lowers every lease left; the ticker waits for nobody ---- */
active proctype Ticker() {
end:
  do
  :: atomic {
       tickThread(0); tickThread(1);
#if NT == 3
       tickThread(2);
#endif
       if
       :: owner != 0 -> ttl--;
          if
          :: ttl == 0 -> holdEnds(ownerT); delKey()   /* the lease ran out: the key vanishes */
          :: else -> skip
          fi
       :: else -> skip
       fi
     }
  od
}

/* sends command c as request `seq` of thread t (one atomic step with what precedes it in the thread) */
inline send(c) {
  seq++; pend[t] = L;
  /* ConnectionBreaks: whether a break is counted after this request was sent. A restart's break is noticed
     at some moment: before this send (counted already: 0), or after it (1) */
  if
  :: broke[t] = 0
  :: pendBreak[t] -> broke[t] = 1
  fi;
  pendBreak[t] = 0;
  /* late replies of earlier requests are dropped (the client matches replies to their request) */
  do
  :: nempty(rep[t]) -> rep[t]?_,_,_,_
  :: empty(rep[t]) -> break
  od;
  toR[t]!c,seq
}

/* the reply to request `seq`, or a timeout (a fault: the command may still run, late). Either way the step goes
   on atomically with the statements that follow it (in an atomic block) */
#define REPLY  rep[t]??eval(seq),res,tok,lf
#define TIMEOUT_ faults < MAXF -> faults++; res = TIMEOUT

/* ---- a thread with one acquisition attempt ---- */
proctype Thread(byte t) {
  byte seq = 0, res, tok, lf, tries = 0, myTok, grantLife, ren = 0;
  bool lost = 0, again = 0, validAtSend, relValid, relFailed = 0;

  /* HoldAcquirer: a try; a failed round trip (timeout) or a refusal tries again, with the same attempt id */
acq:
  atomic { tries++; send(ACQ) }
  if
  :: atomic { REPLY }
  :: atomic { TIMEOUT_ }
  fi;
  atomic {
    if
    :: res == GRANTED ->
       myTok = tok; grantLife = lf; valid[t] = pend[t]; inBody[t] = 1; res = 0; tok = 0; lf = 0
       /* the body */
#ifdef LIVENESS
    :: res != GRANTED -> res = 0; tok = 0; lf = 0; tries = 0; goto acq
#else
    :: res != GRANTED && tries < MAXTRY -> res = 0; tok = 0; lf = 0; goto acq
    :: res != GRANTED && tries == MAXTRY ->
       /* gave up: withdraws what a late try may have left (WithdrawalSender; no answer awaited) */
       res = 0; tok = 0; lf = 0; send(CANCEL); goto done
#endif
    fi;
    pend[t] = 0
  }

  /* the body: one fenced write; the watchdog's renewals; a loss seen on the client's clock */
body:
  if
  :: atomic {
       /* fenced_write.lua: refuses a token smaller than the greatest one accepted */
#ifndef NO_FENCING
       myTok >= high ->
#else
       true ->                              /* negative control: the storage checks nothing */
#endif
       /* (b) no write is accepted from a hold granted before the hold of a write accepted earlier: a holder
          whose lease ended (paused past it) is refused once a later holder wrote */
       assert(myTok >= high);
       high = myTok
     }
  :: atomic { myTok < high -> skip }         /* refused */
  fi;
  do
  :: atomic { ren < MAXREN -> ren++; send(RENEW) }
     /* LeaseRenewer: reentrant_renew.lua */
     if
     :: atomic { REPLY }
     :: atomic { TIMEOUT_ }
     fi;
     atomic {
       if
       :: res == RENEWED -> valid[t] = pend[t]            /* Hold.renewed(sentAt): confirmed until sentAt + L */
       :: res == GONE -> lost = 1                         /* "the watchdog found it gone" */
       :: else -> skip                                    /* failed: lost if the confirmed lease ends */
       fi;
       pend[t] = 0; res = 0; tok = 0; lf = 0
     }
  :: atomic { valid[t] == 0 && !lost -> lost = 1 }      /* LeaseRenewalWatch / LeaseEndCheck */
  :: break
  od;

  /* HoldReleaser: reentrant_release.lua; a failed round trip is tried once more */
  atomic { relStarted[t] = 1; inBody[t] = 0; validAtSend = (valid[t] > 0); relValid = validAtSend; send(REL) }
rel:
  if
  :: atomic { REPLY }
  :: atomic { TIMEOUT_ }
  fi;
  atomic {
    pend[t] = 0;
    if
    :: res == RELEASED -> skip
    :: res == GONE && !again && !broke[t] -> lost = 1    /* ReleaseReplayCheck.notHeld: ran once, found it gone */
    :: res == GONE && (again || broke[t]) ->
       /* ReleaseReplayCheck.ranBefore: maybe the second run of a release that ran */
       if
       :: !validAtSend -> lost = 1                        /* the lease may have ended before it was sent */
#ifndef NO_LIFE_MARKER
       :: validAtSend && life != grantLife -> lost = 1    /* ServerLife.isStill: not the life that granted it */
       :: validAtSend && life == grantLife -> skip        /* the first run released it */
#else
       :: validAtSend -> skip                             /* negative control: taken for a second run */
#endif
       fi
    :: res == TIMEOUT && !again && valid[t] > 0 ->
       /* ReleaseFailures.judge -> ReleaseRetrier: sent again while the confirmed lease lasts */
       again = 1; res = 0; validAtSend = (valid[t] > 0); send(REL); goto rel
    :: res == TIMEOUT && (again || valid[t] == 0) ->
       /* no try answered while the confirmed lease lasted (the model's retries are bounded to one) */
       if
       :: !relValid -> lost = 1
          /* ReleaseFailures.judge: sent after its confirmed lease ended (a hard lease that ran out, or renewals
             that a pause of the whole process held back): the lock may have ended before it */
#ifndef NO_UNANSWERED_CHECK
       :: relValid && life != grantLife -> lost = 1
          /* ReleaseRetrier gives up at the lease's end; ReleaseReplayCheck.unansweredWithinLease: Redis is not on
             the server life that granted the lock, which may have been wiped while it was held */
       :: relValid && life == grantLife -> relFailed = 1
          /* the same life: the lock ended by the release or with its lease; the releaseFailed event only */
#else
       :: relValid -> relFailed = 1
          /* negative control: the retries stop silently at the lease's end (the code before the fix) */
#endif
       fi
    fi;
    /* (d) a hold that ended before its release started, without it, is reported lost to its owner; with
       D_WEAK, or its release is reported failed */
#ifdef D_WEAK
    assert(!earlyEnd[t] || lost || relFailed)
#else
    assert(!earlyEnd[t] || lost)
#endif
  }
done:
  atomic { seq = 0; res = 0; tok = 0; lf = 0; tries = 0; myTok = 0; grantLife = 0; ren = 0;
           lost = 0; again = 0; validAtSend = 0; relValid = 0; relFailed = 0; pend[t] = 0; valid[t] = 0 }
}

/* (a) exclusion, checked after every step:
   - Redis never confirms two holders: two threads in their body whose attempt the key records;
   - no two threads in their body within their confirmed lease (Hold.confirmedUntil), unless a restart wiped one's
     hold (the documented limit of a Redis without persistence: the loss is reported (d), fencing protects the
     data (b)) */
#define CONFIRMED(x) (inBody[x] && owner == ID(x))
#define VALID(x) (inBody[x] && valid[x] > 0 && !wiped[x])
#if NT == 3
#define BAD ((CONFIRMED(0) && CONFIRMED(1)) || (CONFIRMED(0) && CONFIRMED(2)) || (CONFIRMED(1) && CONFIRMED(2)) \
          || (VALID(0) && VALID(1)) || (VALID(0) && VALID(2)) || (VALID(1) && VALID(2)))
#else
#define BAD ((CONFIRMED(0) && CONFIRMED(1)) || (VALID(0) && VALID(1)))
#endif
active proctype Monitor() {
end:
  atomic { BAD -> assert(!BAD) }
}

#ifdef LIVENESS
/* (e) a thread that wants the lock gets it: every try is answered, and the holder's hold ends (released, or its
   lease runs out); with weak fairness (pan -f) */
ltl e { [] ((Thread[4]@acq -> <> Thread[4]@body) && (Thread[5]@acq -> <> Thread[5]@body)) }  /* pids 4, 5: the threads */
#endif

init {
  atomic {
    run Thread(0); run Thread(1);
#if NT == 3
    run Thread(2)
#endif
  }
}
