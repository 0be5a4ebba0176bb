-- Redlock release (or withdrawal of an attempt that failed) on one node.
-- KEYS[1]: the lock's hash on this node (see vote.lua)
-- KEYS[2]: this attempt's withdrawal marker, which vote.lua reads
-- ARGV[1]: the attempt id
-- ARGV[2]: how long the withdrawal marker lives, in milliseconds (the lease), or 0 for no marker: the client sets
--          one where the vote never answered, so that vote, if Redis still runs it or Lettuce re-sends it, is
--          refused rather than taking the key for an attempt that gave up
-- Returns 1 when the attempt held the key here and it was deleted; 0 when it did not hold it (nothing else
--         changes: another owner's lock is never touched). The token counter stays: it outlives the lock.
if tonumber(ARGV[2]) > 0 then
    redis.call('set', KEYS[2], '1', 'px', ARGV[2])
end
if redis.call('hget', KEYS[1], 'owner') == ARGV[1] then
    redis.call('del', KEYS[1])
    return 1
end
return 0
