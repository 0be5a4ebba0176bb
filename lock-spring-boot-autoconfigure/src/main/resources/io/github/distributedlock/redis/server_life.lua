-- The server-life marker (see ServerLife.java): a value this Redis server keeps while clients use it, so that a
-- client can tell whether a release that found nothing held ran on the server life that granted the lock. A
-- server restarted empty or flushed, or a replica promoted in a failover, has no marker; the first client that asks
-- writes a new one.
-- KEYS[1]: the marker, '<key prefix>__server-life': a hash with one field, 'life' (one per server and key prefix;
--          never a lock's key)
-- ARGV[1]: a candidate: a random integer in [1, 2^53), written when the marker is absent
-- ARGV[2]: the marker's TTL in milliseconds, set again by every read: it expires that long after the last read
-- Returns the marker's value, an integer.
-- Nothing is replicated (nor appended to the AOF): a replica promoted in a failover has no marker, so it starts a
-- life of its own, as a server restarted empty does. A snapshot (RDB, or an AOF rewrite) does carry it: see
-- docs/semantics.md
redis.set_repl(redis.REPL_NONE)
local life = redis.call('hget', KEYS[1], 'life')
if not life then
    life = ARGV[1]
    redis.call('hset', KEYS[1], 'life', life)
end
redis.call('pexpire', KEYS[1], ARGV[2])
return tonumber(life)
