-- Redlock release (or withdrawal of an attempt that failed) on one node.
-- KEYS[1]: the lock's hash on this node (see vote.lua)
-- KEYS[2]: this attempt's marker: it makes vote.lua refuse a late or re-sent vote of the attempt (one that Redis
--          still runs or Lettuce re-sends after the client gave up), and it keeps this release's answer ('held' or
--          'free'), which a repeat of the release returns: a release that ran once and is sent again (Lettuce
--          re-sends a command whose connection dropped; the client asks a node that did not answer once more)
--          must not read "not held" because its first run deleted the key
-- ARGV[1]: the attempt id
-- ARGV[2]: how long the marker lives, in milliseconds (the lease): longer than any vote or repeat of the attempt
-- ARGV[3]: the release channel, '<key prefix>__released': when another attempt's vote was refused here while
--          this one held the key (field 'w', see vote.lua), the deleted key's name (KEYS[1]) is published on it, so
--          that the clients waiting for it vote again at once. pcall: a publish the user may not do (an ACL
--          without the channel) never undoes the release; the waiters try again after their retry delay. Empty
--          for the withdrawal of an attempt that did not win (a split vote): nothing is published.
-- ARGV[4]: what is left of the hold's minimum hold (holdAtLeast), in milliseconds; '0' for none. Above 0, the key is
--          kept instead of deleted, taken by nobody until then, as the Redis store's reentrant_keep.lua does: its
--          owner becomes '<attempt>~kept', which is no attempt's (every vote is refused until the key expires, and no
--          later renewal, record or release of the attempt touches it), and its TTL this; nothing is published (the
--          lock is still taken: its waiters vote again when the key expires).
-- Returns 1 when the attempt held the key here when its release first ran (and it was deleted or kept then); 0 when
--         it did not hold it (nothing else changes: another owner's lock is never touched). The token counter stays:
--         it outlives the lock.
local before = redis.call('get', KEYS[2])
if before == 'held' then
    return 1
elseif before == 'free' then
    return 0
end
local lock = redis.call('hmget', KEYS[1], 'owner', 'w')
local held = lock[1] == ARGV[1]
local keep = tonumber(ARGV[4] or '0') or 0
if held and keep > 0 then
    redis.call('hset', KEYS[1], 'owner', ARGV[1] .. '~kept')
    redis.call('pexpire', KEYS[1], keep)
elseif held then
    redis.call('del', KEYS[1])
    if lock[2] and ARGV[3] ~= '' then
        redis.pcall('publish', ARGV[3], KEYS[1])
    end
end
redis.call('set', KEYS[2], held and 'held' or 'free', 'px', ARGV[2])
return held and 1 or 0
