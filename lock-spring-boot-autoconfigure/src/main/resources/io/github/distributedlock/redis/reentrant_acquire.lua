-- Acquires a reentrant lock, or re-enters it for its owner: the part after the common cases, which
-- reentrant_acquire_head.lua (loaded before it) answers on their own; the fence.lua, notify.lua and
-- reentrant_common.lua functions come between the two.
-- KEYS[1]: the lock's hash (fields: see reentrant_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: lease in milliseconds (the key's TTL)
-- ARGV[3]: "1" when the owner believes it already holds the lock (a re-entry), "0" otherwise
-- ARGV[4]: how long the owner will wait at most before it tries again, in milliseconds (it also tries again
--          when the holder's lease ends): when the lock is held, a positive value queues the owner for it, or
--          refreshes its entry and keeps its place, until then plus RL_ENTRY_SLACK; 0 (a try without waiting)
--          does not; nor does a key without TTL (-4), which its waiters try again every 100 ms instead
-- ARGV[5]: with a positive ARGV[4]: the number the owner's client gave this wait (echoed by its grant)
-- Returns one integer, not a pair, when acquired: the new fencing token (also when the lock had been granted to
--         the owner already). Otherwise a pair {result, token}:
--         result -1 when re-entered (token 0: the outer hold's counts);
--         -2 when ARGV[3] is "1" but the owner no longer holds it (its lease ran out: the lock was lost);
--         -4 when a key without TTL holds it (not written by this library, or made persistent: it never expires);
--         -5 when the key is a read/write lock's (field '~rw'): refused, nothing is changed;
--         -6 when the key is a semaphore's (field '~p'), with its permit count as the token: refused, nothing is
--         changed;
--         otherwise the holder's remaining lease in milliseconds (token 0).
-- this attempt's own field here is a grant it has not heard of (its message was lost), or its own earlier try
-- that ran although its reply was lost (a dropped connection, a timeout): either way it holds the lock now, once,
-- with a new token; a later attempt of the same thread has another owner id and never finds this field.
-- One HMGET reads all that a try on a held key looks at: that field, the marks of the other kinds of lock, its
-- own waiter entry
local entry = 'q:' .. ARGV[1]
local fields = redis.call('hmget', KEYS[1], ARGV[1], '~rw', '~p', entry)
if fields[1] then
    local token = fence_next(KEYS[1], ARGV[1])
    redis.call('pexpire', KEYS[1], ARGV[2])
    return token
end
-- a read/write lock's hash: its fields must not mix with a reentrant lock's
if fields[2] then
    return { -5, 0 }
end
-- a semaphore's hash: one key is one kind, used with one permit count
if fields[3] then
    return { -6, tonumber(fields[3]) }
end
local pttl = redis.call('pttl', KEYS[1])
-- PTTL's -1 (no TTL) would read as "acquired"; and no waiter entry goes into such a key: it would stay for ever
-- once its waiter died (the key never expires), in a key this library may not even have written
if pttl < 0 then
    return { -4, 0 }
end
local wait = tonumber(ARGV[4])
if wait > 0 then
    -- the waiter tries again when the holder's lease ends at the latest (a crashed holder publishes nothing)
    local nowMs, nowMicros = rl_now()
    -- numbers are formatted with %d: Lua's default would print Redis TIME in microseconds in e-notation
    local since = string.format('%d', nowMicros)
    local old = fields[4]
    if old then
        since = string.match(old, '^(%d+):') or since
    end
    local asks = math.min(wait, (pttl >= 0) and pttl or 100)
    redis.call('hset', KEYS[1], entry, string.format('%s:%d:%d:%s', since, nowMs + asks + RL_ENTRY_SLACK, lease,
        ARGV[5]))
end
return { pttl, 0 }
