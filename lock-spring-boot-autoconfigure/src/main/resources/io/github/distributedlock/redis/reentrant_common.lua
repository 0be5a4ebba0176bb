-- Shared functions of the reentrant lock scripts; prepended to each of them that needs them when it is loaded.
--
-- A reentrant lock is ONE Redis hash; its TTL is the holder's lease. Its fields:
--   <owner id>      the holder and its hold count: one such field. The owner id names one acquisition attempt,
--                   "<client id>:<thread id>/<attempt>", so that a late or repeated command of an attempt (a
--                   command Lettuce re-sends after a reconnect, a timed-out round trip that ran after all)
--                   never acts on a later attempt of the same thread
--   ~f              the last fencing token handed out for the lock (see fence.lua)
--   ~k              set when the last holder released it before its minimum hold (holdAtLeast) ended: the
--                   lock stays taken, by nobody, until the key expires
--   q:<owner id>    an owner waiting for the lock in Redis (at most one thread per client: the others queue
--                   in their client), "<since>:<until>:<lease>:<wait id>": Redis TIME microseconds when it
--                   first waited (its place in the queue), Redis TIME milliseconds until which the entry
--                   counts (a waiter that died stops counting then), the lease it asked for in milliseconds,
--                   and a number its client gave this wait
-- A release grants the lock to the waiter that waited longest (first come, first served across instances),
-- and publishes "<owner id> <wait id> <token> <key>" on "<release channel>:<client id>" so that only that client
-- wakes, and only that wait (not a later one of the same thread), which then holds the lock without asking
-- again, with the fencing token the grant gave it. Nobody else is woken: no herd of retries.

-- How long (milliseconds) a waiter's entry outlives the wait it announced: it covers the waiter's round trips
-- and pauses before it asks again, which refreshes the entry.
local RL_ENTRY_SLACK = 2000

local function rl_now()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- Frees the lock held by owner: grants it to the live waiter that waited longest, deleting the entries of
-- waiters that are no longer live, or deletes the key when none is left. Returns the owner id it was granted
-- to, or false. waiters: whether the hash has fields besides the holder and '~f' (they can only be waiters),
-- when the caller knows it; nil to look.
local function rl_free(key, owner, channel, waiters)
    if waiters == nil then
        waiters = redis.call('HLEN', key) > 1 + redis.call('HEXISTS', key, '~f')
    end
    if waiters then
        -- one TIME and one HGETALL serve the whole grant: the waiters' entries, the last token, the new token
        local now, nowMicros = rl_now()
        local raw = redis.call('HGETALL', key)
        local next, nextSince, nextLease, nextWait, last
        for i = 1, #raw, 2 do
            local f = raw[i]
            if f == '~f' then
                last = tonumber(raw[i + 1])
            elseif string.sub(f, 1, 2) == 'q:' then
                local since, untilMs, lease, wait = string.match(raw[i + 1], '^(%d+):(%d+):(%d+):(%d+)$')
                if not since or tonumber(untilMs) < now then
                    redis.call('HDEL', key, f)
                elseif not next or tonumber(since) < nextSince then
                    next, nextSince, nextLease, nextWait = string.sub(f, 3), tonumber(since), lease, wait
                end
            end
        end
        if next then
            redis.call('HDEL', key, owner, 'q:' .. next)
            -- the new holder and its token in one write (from what was read above)
            local token = fence_pass(last, nowMicros)
            fence_record(key, token, next)
            redis.call('PEXPIRE', key, nextLease)
            -- a grant that cannot be published still stands: the waiter finds it at its next try
            notify(channel, ':' .. string.match(next, '^(.*):[^:]*$'),
                next .. ' ' .. nextWait .. ' ' .. string.format('%d', token) .. ' ' .. key)
            return next
        end
    end
    redis.call('DEL', key)
    return false
end
