-- Releases holds of a reentrant lock; only its owner can. This is the part after reentrant_release_head.lua
-- (loaded before it, with the notify.lua, fence.lua and reentrant_common.lua functions between the two), which
-- answers a release that leaves holds, and an uncontended last release, on its own.
-- Its last release passes the lock on: to the instance that waited longest in Redis, or else to the next
-- thread of the owner's own client (ARGV[4]), or else frees it.
-- KEYS[1]: the lock's hash (fields: see reentrant_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: the release channel; grants are published on "<ARGV[2]>:<client id>"
-- ARGV[3]: how many holds to release (the client's last release passes more than it may
--          have: a re-entry whose outcome it never learnt, say a timed-out round trip that ran, is released too)
-- ARGV[4]: optional: the owner id (an acquisition attempt) to hand the lock to when this release frees it and no other instance waits
--          for it (a thread of the same client queued for it)
-- ARGV[5]: with ARGV[4]: that owner's lease in milliseconds
-- Returns, with ARGV[4], {result, token}: result -1 when the owner holds no hold (never acquired, or lost: nothing
--         is changed); -2 when the lock was handed over to ARGV[4]: it holds it once, for its lease, with that
--         fencing token; otherwise the holds left (0: the lock is freed, or granted to a waiting instance); token 0
--         but for a hand-over. Without ARGV[4] (no hand-over possible): the result alone, one integer (an array
--         reply costs Redis and the client more than an integer, on every uncontended release).
-- An uncontended release publishes nothing.
-- passed on: to the local owner of ARGV[4] when no other instance waits, else to the instance that waited
-- longest, else freed (the head's locals: left <= 0, fields = HLEN, reply)
if ARGV[4] and fields <= 2 then
    redis.call('hdel', KEYS[1], ARGV[1])
    local token = fence_next(KEYS[1], ARGV[4])
    redis.call('pexpire', KEYS[1], ARGV[5])
    return { -2, token }
end
rl_free(KEYS[1], ARGV[1], ARGV[2], fields > 2)
return reply(0)
