-- pg_grail 0.3.0 -> 0.4.0: the image cache reports server-wide counters (backends that map each
-- image, hits, loads) and which mode it is in and why.
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.4.0'" to load this file. \quit

DROP FUNCTION grail.cache_info();
DROP FUNCTION grail.cache_counters();

CREATE FUNCTION grail.cache_info()
RETURNS TABLE (build uuid, bytes bigint, last_used timestamptz, backends integer, hits bigint, loads bigint)
AS 'MODULE_PATHNAME', 'grail_cache_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 10;
COMMENT ON FUNCTION grail.cache_info() IS
'The index images of this database in the server''s shared image cache: the build (grail.graph.build_uuid), its bytes, when a backend last opened it; and, when pg_grail is preloaded, how many backends map it now and how many times one opened it from the cache (hits) or wrote it from the catalog (loads) since the server started.';
REVOKE ALL ON FUNCTION grail.cache_info() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grail.cache_info() TO pg_monitor;

CREATE FUNCTION grail.cache_counters(OUT cache_limit bigint, OUT cached_bytes bigint, OUT cached_images bigint,
                                     OUT hits bigint, OUT loads bigint, OUT private_copies bigint,
                                     OUT mode text, OUT mode_reason text)
RETURNS record
AS 'MODULE_PATHNAME', 'grail_cache_counters'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION grail.cache_counters() IS
'The shared image cache: its limit (grail.shared_cache_size), the bytes and images it holds (all databases); this session''s images opened from it (hits), read from the catalog (loads), and kept private (cache off or too small); the mode (shared or private) and why.';
REVOKE ALL ON FUNCTION grail.cache_counters() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grail.cache_counters() TO pg_monitor;

