-- Redlock release (or withdrawal of an attempt that failed) on one node.
-- KEYS[1]: the lock's hash on this node (see vote.lua)
-- KEYS[2]: this attempt's withdrawal marker, which vote.lua reads
-- ARGV[1]: the attempt id
-- ARGV[2]: how long the withdrawal marker lives, in milliseconds (the lease), or 0 for no marker: the client sets
--          one where the vote never answered, so that vote, if Redis still runs it or Lettuce re-sends it, is
--          refused rather than taking the key for an attempt that gave up
-- ARGV[3]: the release channel, '<key prefix>__released': when another attempt's vote was refused here while
--          this one held the key (field 'w', see vote.lua), the deleted key's name (KEYS[1]) is published on it, so
--          that the clients waiting for it vote again at once. pcall: a publish the user may not do (an ACL
--          without the channel) never undoes the release; the waiters try again after their retry delay. Empty
--          for the withdrawal of an attempt that did not win (a split vote): nothing is published.
-- Returns 1 when the attempt held the key here and it was deleted; 0 when it did not hold it (nothing else
--         changes: another owner's lock is never touched). The token counter stays: it outlives the lock.
if tonumber(ARGV[2]) > 0 then
    redis.call('set', KEYS[2], '1', 'px', ARGV[2])
end
local lock = redis.call('hmget', KEYS[1], 'owner', 'w')
if lock[1] == ARGV[1] then
    redis.call('del', KEYS[1])
    if lock[2] and ARGV[3] ~= '' then
        redis.pcall('publish', ARGV[3], KEYS[1])
    end
    return 1
end
return 0
