/*
 * Redlock (store `redlock`), model-checked with SPIN. See docs/verification.md.
 *
 * Scripts (lock-spring-boot-autoconfigure/src/main/resources/io/github/distributedlock/redlock/):
 *   vote.lua     a node's vote for one attempt, with the node's token basis max(counter, clock)
 *   record.lua   records the chosen token (raises the node's counter)
 *   extend.lua   renewal on a node: a new TTL of one lease, only where the key's owner is still the attempt
 *   release.lua  release or withdrawal of an attempt on a node; sets the attempt's withdrawal marker
 * Java (lock-spring-boot-autoconfigure/src/main/java/io/github/distributedlock/redlock/): the acquisition round
 *   (RedlockAcquirer, Votes, NodeReplies: vote on every node, quorum N/2 + 1 of the configured N, token, record,
 *   validity = lease - elapsed - drift), the renewal (RedlockRenewer.renew, RedlockCommands.extend,
 *   NodeReplies.ones, RedlockHold.confirmedUntil: extend on every node at once; with a quorum of 1 replies the
 *   validity moves, never earlier, to start + lease - drift, the start taken before the round), the release on
 *   every node (RedlockReleases), the withdrawal of a failed round (RedlockCommands.withdraw: not on a node that
 *   answered the round's vote in time with a refusal; such a vote ran and took nothing, and its command is never
 *   re-sent once answered).
 *
 * The token design modelled is issue 41.3's: EVERY answer of a round carries its node's token basis, refusals
 * included; the token is 1 + the greatest basis of the answers the round received; it is recorded on every node that
 * answered (a refusing node raises its counter too). GRANTS_ONLY_BASIS models the design before it (basis from the
 * granting nodes only, recorded on them only). Each vote carries a proposed token (RedlockClocks, RedlockCommands
 * .proposal): vote.lua raises its node's counter to a proposal above its basis, whatever it answers; a proposal
 * above every basis the round received is the token, with no record step (RedlockAcquisition, Votes.recorded).
 *
 * Abstractions:
 * - time: `now` ticks (bounded by MAXT: the node clocks are absolute); node 0's clock runs OFF ticks ahead of the
 *   others (a constant offset); a key's lease is L ticks of its node's clock, and a node's clock may run fast
 *   by the drift: a key may expire DRIFT ticks early. The client measures its validity on its own clock from
 *   before its first vote;
 * - each vote is one atomic step on its node, and other rounds, ticks and restarts interleave between them; a
 *   round's records (and its releases) run as one step over the nodes (fewer interleavings than the parallel
 *   sends); a vote may go unanswered before the round decides (a slow or unreachable node: LATE such events per
 *   run); such a vote may still run later (a late vote, or one Lettuce re-sends);
 * - renewal: MAXE extend rounds per run (of any hold), each extend one atomic step on its node like a vote; an
 *   extend may go unanswered before the round decides (from the same LATE budget) and still run later (late, or
 *   re-sent by Lettuce): its reply no longer counts, and it only acts if the attempt still owns the key there;
 * - attempts: client 0 one round (attempt 1), client 1 two rounds (attempts 2, 3);
 * - MAXR node restarts: the node comes back empty (keys, counters and markers lost) after DOWN ticks (a delayed
 *   restart: longer than the lease) or at once (IMMEDIATE_RESTART);
 * - the withdrawal marker outlives every late vote of its attempt (release.lua: it lives one lease);
 * - a node that answered a vote in time has no command of that vote left to run (Lettuce re-sends only commands
 *   whose reply never came): a late vote is one that went unanswered in time.
 * Not modelled: the loss reports of a failed renewal (RedlockRenewer.expireAt, RedlockEvents.lost), waiting and
 * notifications, holdAtLeast, clock jumps.
 *
 * Properties: (a) the Monitor: no two holds within their validity (a validity moved by an extend included);
 * (b) tokens strictly increase across holds, and the fenced storage refuses a stale write; (c) a vote never takes a
 * node for an attempt whose release or withdrawal already ran there, and an extend (in time, late or repeated)
 * never acts on a key another attempt owns.
 * Negative controls: NO_WITHDRAW_UNANSWERED (a failed round withdrawn only where it was granted, not also
 * where its vote went unanswered in time: the late vote takes that node for the ended attempt, (c) with the ghost
 * relRan set where the withdrawal was skipped), EVICTION, IMMEDIATE_RESTART, NO_DRIFT_MARGIN, NO_WITHDRAWAL_MARKER,
 * PROPOSAL_UNCHECKED (the proposed token taken whatever the bases answered), TOKEN_FROM_COUNTER_ONLY,
 * GRANTS_ONLY_BASIS (run with NO_PROPOSAL: every round on the record path), NO_EXTEND_OWNER_CHECK (extend.lua without its owner check: it renews whatever key is there and
 * answers 1; with SKIP_EXTEND_C, (c)'s extend assertion is left out to show the harm to (a)), NO_EXTEND_QUORUM
 * (the validity moved by a renewal that one node confirmed).
 */

#define N 3
#define Q 2            /* quorum: N/2 + 1 of the configured nodes */
#ifndef L
#define L 2            /* lease, in ticks */
#endif
#define DRIFT 1        /* the drift margin: drift-factor x lease + 2 ms, here one tick */
#ifndef OFF
#define OFF 4          /* node 0's clock offset, in ticks: more than a lease */
#endif
#ifndef MAXT
#define MAXT 7
#endif
#ifndef MAXR
#define MAXR 1
#endif
#ifndef LATE
#define LATE 1         /* votes and extends unanswered before their round decides, per run */
#endif
#ifndef MAXE
#define MAXE 1         /* extend rounds (renewals) per run */
#endif
#ifdef IMMEDIATE_RESTART
#define DOWN 0
#else
#define DOWN (L + 1)   /* a delayed restart: down longer than the longest lease */
#endif
/* client 0: one round (attempt 1); client 1: NR1 rounds (attempts 2 and 3), each round a new attempt id */
#define NA 3
#ifndef NR1
#define NR1 2
#endif

/* ---- the nodes ---- */
byte own[N];           /* the key's owner field (attempt id), 0: no key */
byte ttl[N];           /* its TTL */
byte cnt[N];           /* the key's token counter ('~token', no TTL, lost in a restart) */
byte mark[N];          /* withdrawal markers: bit a-1 for attempt a */
byte down[N];          /* ticks until a restarted node answers again */

byte now = 0;
byte restarts = 0;
#ifdef EVICTION
byte evictions = 0;
#endif
byte late = 0;
byte late_votes[NA + 1];   /* per attempt: the nodes whose vote is still on its way (bits) */
byte late_ext[NA + 1];     /* per attempt: the nodes whose extend is still on its way (bits) */
byte propOf[NA + 1];       /* per attempt: the token its votes propose (its round's and its late ones) */
byte exts = 0;             /* extend rounds so far */

/* the fenced storage */
byte high = 0;

/* ghost */
bool inBody[NA + 1];
byte validUntil[NA + 1];
byte lastTok = 0;      /* the token of the latest hold (b) */
byte relRan[NA + 1];   /* per attempt: the nodes where its release or withdrawal ran (bits) (c) */

#define CLOCK(n) (now + ((n) == 0 -> OFF : 0))
#define BIT(n) (1 << (n))

inline expire(n) {
  own[n] = 0; ttl[n] = 0
}

/* vote.lua on node n for attempt a with the proposed token p (0: none): sets g (1 granted, 0 refused, 255
   withdrawn) and b (the basis, before this vote raised anything). A proposal above the basis is recorded by the vote
   itself, granting, refusing or withdrawn alike (the counter raised to it; on a grant the key's token too) */
inline vote(a, n, p, g, b) {
#ifdef TOKEN_FROM_COUNTER_ONLY
  b = cnt[n];                                       /* negative control: no clock in the basis */
#else
  b = (cnt[n] > CLOCK(n) -> cnt[n] : CLOCK(n));     /* max(counter, TIME) */
#endif
  if :: p > b -> cnt[n] = p :: else -> skip fi;
#ifndef NO_WITHDRAWAL_MARKER
  if
  :: mark[n] & BIT(a - 1) -> g = 255; b = 0         /* { -1, 0 }: the attempt was withdrawn */
  :: else ->
#else
  if
  :: true ->
#endif
     if
     :: own[n] == 0 ->
        assert(!(relRan[a] & BIT(n)));               /* (c) never a node for an attempt released there */
        own[n] = a; ttl[n] = L; g = 1
     :: own[n] == a -> g = 1                         /* a repeated vote changes nothing */
     :: else -> g = 0
     fi
  fi
}

/* one vote of the round on node n (vote.lua), answered in time or not */
inline voteStep() {
  if
  :: down[n] == 0 -> vote(a, n, propOf[a], g, b);
     if
     :: g == 1 || g == 0 ->
        answered = answered | BIT(n);
        if :: g == 1 -> granted = granted | BIT(n) :: else -> refused = refused | BIT(n) fi;
#ifdef GRANTS_ONLY_BASIS
        if :: g == 1 && b > basis -> basis = b :: else -> skip fi   /* negative control: grants' bases only */
#else
        if :: b > basis -> basis = b :: else -> skip fi             /* every answer's basis, refusals too */
#endif
     :: else -> refused = refused | BIT(n)                           /* withdrawn here: refused, took nothing */
     fi
  :: down[n] != 0 -> skip                                            /* the node is down: no answer */
  :: late < LATE -> late++; late_votes[a] = late_votes[a] | BIT(n)   /* on its way: not in time */
  fi;
  g = 0; b = 0; n++
}

/* extend.lua on node n for attempt a: g = 1 when extended. The owner check: only a key the attempt still owns gets
   a new TTL of one lease; anything else is left alone (0). A late or repeated extend is harmless: it never takes a
   node back */
inline extend(a, n, g) {
  if
#ifdef NO_EXTEND_OWNER_CHECK
  :: own[n] != 0 ->                                 /* negative control: renews whatever key is there */
#else
  :: own[n] == a ->
#endif
#ifndef SKIP_EXTEND_C
     assert(own[n] == a);                           /* (c) an extend acts only on its attempt's hold */
#endif
     ttl[n] = L; g = 1
  :: else -> g = 0
  fi
}

/* one extend of the renewal round on node n (RedlockCommands.extend, NodeReplies.sendToAll), answered in time or
   not; `recorded` collects the nodes that answered 1 */
inline extendStep() {
  if
  :: down[n] == 0 -> extend(a, n, g);
     if :: g == 1 -> recorded = recorded | BIT(n) :: else -> skip fi
  :: down[n] != 0 -> skip                                            /* the node is down: no answer */
  :: late < LATE -> late++; late_ext[a] = late_ext[a] | BIT(n)       /* on its way: not in time */
  fi;
  g = 0; n++
}

#define COUNT(x) (((x) & 1) + (((x) >> 1) & 1) + (((x) >> 2) & 1))

/* ---- a client: its acquisition rounds, each a new attempt id ---- */
proctype Client(byte c) {
  byte a, r = 0, n, g, b, start, answered, granted, refused, basis, tok, recorded, i;
  bool held;

next:
  /* the vote, sent to every node at once: the start time first (the client's monotonic clock) */
  /* the proposed token (RedlockClocks.proposal): none (no recent clock seen), one below the ahead node's clock, or
     the greatest node clock + 1 (the client's estimate from the clocks the last round answered, plus its margin) */
  atomic {
    a = (c == 0 -> 1 : 2 + r); start = now; answered = 0; granted = 0; refused = 0; basis = 0; n = 0;
#ifdef NO_PROPOSAL
    propOf[a] = 0;                                 /* the record path only */
#else
    if :: propOf[a] = 0 :: propOf[a] = now + 1 :: propOf[a] = now + OFF + 1 fi;
#endif
    voteStep()
  }
  atomic { voteStep() }
  atomic { voteStep() }
  atomic {
    n = 0;
    if
    :: COUNT(granted) < Q -> goto withdraw          /* fewer grants than the quorum: withdrawn */
    :: else -> skip
    fi;
#ifdef PROPOSAL_UNCHECKED
    if :: propOf[a] != 0 ->                         /* negative control: the proposal taken whatever the bases */
#else
    if :: propOf[a] != 0 && propOf[a] > basis ->    /* above every basis answered: the votes recorded it */
#endif
       tok = propOf[a]; recorded = granted; goto validity
    :: else -> skip
    fi;
    tok = basis + 1;
    /* record.lua on every node that answered (GRANTS_ONLY_BASIS: on the granting ones): the counter is raised;
       the record counts where the attempt still holds the key */
    recorded = 0;
    for (i : 0 .. N - 1) {
#ifdef GRANTS_ONLY_BASIS
      if :: (granted & BIT(i)) && down[i] == 0 ->
#else
      if :: (answered & BIT(i)) && down[i] == 0 ->
#endif
         if :: tok > cnt[i] -> cnt[i] = tok :: else -> skip fi;
         if :: own[i] == a -> recorded = recorded | BIT(i) :: else -> skip fi
      :: else -> skip
      fi
    }
    i = 0;
    if
    :: COUNT(recorded) < Q -> goto withdraw
    :: else -> skip
    fi;
validity:
    /* the validity: lease - elapsed - drift, from the start time (checked here, at the records: a later check
       only withdraws more) */
#ifdef NO_DRIFT_MARGIN
    if :: now - start >= L -> goto withdraw :: else -> skip fi;
    validUntil[a] = start + L;
#else
    if :: now - start + DRIFT >= L -> goto withdraw :: else -> skip fi;
    validUntil[a] = start + L - DRIFT;
#endif
    inBody[a] = 1; held = 1;
    assert(tok > lastTok);                 /* (b) tokens strictly increase across holds */
    lastTok = tok;
    start = 0; recorded = 0
  }
  /* the watchdog's renewal (RedlockRenewer.renew): its start time on the client's clock first, then extend.lua on
     every node at once (RedlockCommands.extend); with a quorum of nodes answering 1 (NodeReplies.ones), the
     validity moves to start + lease - drift (RedlockHold.confirmedUntil: never earlier). Fewer: no new validity
     (a renewal failure; the hold ends with its current validity) */
  if
  :: atomic { exts < MAXE -> exts++; start = now; n = 0; extendStep() }
     atomic { extendStep() }
     atomic {
       extendStep();
       n = 0;
#ifdef NO_EXTEND_QUORUM
       if :: COUNT(recorded) >= 1 ->          /* negative control: one node's extend counts */
#else
       if :: COUNT(recorded) >= Q ->
#endif
#ifdef NO_DRIFT_MARGIN
          if :: start + L > validUntil[a] -> validUntil[a] = start + L :: else -> skip fi
#else
          if :: start + L - DRIFT > validUntil[a] -> validUntil[a] = start + L - DRIFT :: else -> skip fi
#endif
       :: else -> skip
       fi;
       start = 0; recorded = 0
     }
  :: true -> skip
  fi;
  /* the body: one fenced write (fenced_write.lua, FencedJdbc), after any pause */
  atomic {
    if
    :: tok >= high -> high = tok
    :: else -> skip                        /* refused: a later holder wrote */
    fi
  }
withdraw:
  /* release.lua on every node (a release), or on every node but those that refused the vote in time (the withdrawal
     of a failed round): deletes the attempt's key where it holds it, sets its marker */
  atomic {
    inBody[a] = 0;
    for (i : 0 .. N - 1) {
      if
      :: !held && (refused & BIT(i)) -> skip     /* refused in time (Votes.refused): nothing of the attempt there */
#ifdef NO_WITHDRAW_UNANSWERED
      :: !held && !(granted & BIT(i)) && down[i] == 0 ->
         relRan[a] = relRan[a] | BIT(i)    /* negative control: the unanswered node gets no withdrawal */
#endif
      :: else -> if
      :: down[i] == 0 ->
         mark[i] = mark[i] | BIT(a - 1);
         relRan[a] = relRan[a] | BIT(i);
         if :: own[i] == a -> expire(i) :: else -> skip fi
      :: else -> skip                      /* down: counts neither way */
      fi fi
    };
    i = 0; tok = 0; basis = 0; answered = 0; granted = 0; refused = 0; recorded = 0; start = 0; held = 0; r++;
    if
    :: c == 1 && r < NR1 -> goto next
    :: else -> a = 0; r = 0
    fi
  }
}

/* ---- time, drift, restarts, late votes ---- */
active proctype World() {
  byte n, a, g, b;
end:
  do
  :: atomic {
       now < MAXT -> now++;
       for (n : 0 .. N - 1) {
         if :: down[n] > 0 -> down[n]-- :: else -> skip fi;
         if
         :: own[n] != 0 -> ttl[n]--;
            if :: ttl[n] == 0 -> expire(n) :: else -> skip fi
         :: else -> skip
         fi
       }
       n = 0
     }
  /* drift: a node's clock runs fast, its key expires up to DRIFT ticks early */
  :: atomic { own[0] != 0 && ttl[0] <= DRIFT -> expire(0) }
  :: atomic { own[1] != 0 && ttl[1] <= DRIFT -> expire(1) }
  :: atomic { own[2] != 0 && ttl[2] <= DRIFT -> expire(2) }
#ifdef EVICTION
  /* negative control: maxmemory evicts a lock key (it has a TTL) on a node, its counter kept; the library refuses
     an evicting node at startup (EvictionCheck, per node), which this control shows needed */
  :: atomic { evictions < 2 && own[0] != 0 -> evictions++; expire(0) }
  :: atomic { evictions < 2 && own[1] != 0 -> evictions++; expire(1) }
  :: atomic { evictions < 2 && own[2] != 0 -> evictions++; expire(2) }
#endif
  /* a node crashes and restarts empty (no persistence): keys, counters, markers gone */
  :: atomic {
       restarts < MAXR -> restarts++;
       if :: n = 0 :: n = 1 :: n = 2 fi;
       expire(n); cnt[n] = 0; mark[n] = 0; down[n] = DOWN;
       for (a : 1 .. NA) { relRan[a] = relRan[a] & ~BIT(n) }   /* the markers went with it (see the header) */
       n = 0; a = 0
     }
  /* a late extend runs (extend.lua, late or re-sent by Lettuce), its answer no longer counted: it only renews a key
     its attempt still owns */
  :: atomic {
       late_ext[1] | late_ext[2] | late_ext[3] ->
       if
       :: late_ext[1] -> a = 1 :: late_ext[2] -> a = 2 :: late_ext[3] -> a = 3
       fi;
       if
       :: late_ext[a] & 1 -> n = 0 :: late_ext[a] & 2 -> n = 1 :: late_ext[a] & 4 -> n = 2
       fi;
       late_ext[a] = late_ext[a] & ~BIT(n);
       if :: down[n] == 0 -> extend(a, n, g) :: else -> skip fi;
       n = 0; a = 0; g = 0
     }
  /* a late vote runs (vote.lua), its answer no longer counted */
  :: atomic {
       late_votes[1] | late_votes[2] | late_votes[3] ->
       if
       :: late_votes[1] -> a = 1 :: late_votes[2] -> a = 2 :: late_votes[3] -> a = 3
       fi;
       if
       :: late_votes[a] & 1 -> n = 0 :: late_votes[a] & 2 -> n = 1 :: late_votes[a] & 4 -> n = 2
       fi;
       late_votes[a] = late_votes[a] & ~BIT(n);
       if :: down[n] == 0 -> vote(a, n, propOf[a], g, b) :: else -> skip fi;
       n = 0; a = 0; g = 0; b = 0
     }
  od
}

/* (a) no two attempts hold within their validity */
#define VALID(x) (inBody[x] && now < validUntil[x])
#define BAD ((VALID(1) && VALID(2)) || (VALID(1) && VALID(3)) || (VALID(2) && VALID(3)))
active proctype Monitor() {
end:
  atomic { BAD -> assert(!BAD) }
}

init {
  atomic { run Client(0); run Client(1) }
}
