-- The SQL surface: signatures, return types, labels the planner relies on, the catalog's privileges.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(54);

SELECT has_function('grail', 'create_graph', ARRAY['text', 'regclass', 'name', 'name', 'integer', 'boolean', 'boolean', 'text']);
SELECT function_returns('grail', 'create_graph', ARRAY['text', 'regclass', 'name', 'name', 'integer', 'boolean', 'boolean', 'text'], 'text');
SELECT volatility_is('grail', 'create_graph', ARRAY['text', 'regclass', 'name', 'name', 'integer', 'boolean', 'boolean', 'text'], 'volatile');
SELECT has_function('grail', 'refresh_graph', ARRAY['text']);
SELECT function_returns('grail', 'refresh_graph', ARRAY['text'], 'text');
SELECT has_function('grail', 'drop_graph', ARRAY['text']);
SELECT function_returns('grail', 'drop_graph', ARRAY['text'], 'void');

SELECT has_function('grail', 'reachable', ARRAY['text', 'bigint', 'bigint']);
SELECT function_returns('grail', 'reachable', ARRAY['text', 'bigint', 'bigint'], 'boolean');
SELECT is_strict('grail', 'reachable', ARRAY['text', 'bigint', 'bigint']);
SELECT volatility_is('grail', 'reachable', ARRAY['text', 'bigint', 'bigint'], 'stable');
SELECT has_function('grail', 'reachable', ARRAY['text', 'bigint[]', 'bigint[]']);
SELECT function_returns('grail', 'reachable', ARRAY['text', 'bigint[]', 'bigint[]'], 'boolean[]');
SELECT is_strict('grail', 'reachable', ARRAY['text', 'bigint[]', 'bigint[]']);

SELECT has_function('grail', 'scc_components', ARRAY['text']);
SELECT function_returns('grail', 'scc_components', ARRAY['text'], 'setof record');
SELECT has_function('grail', 'scc_component', ARRAY['text', 'bigint']);
SELECT function_returns('grail', 'scc_component', ARRAY['text', 'bigint'], 'bigint');
SELECT has_function('grail', 'bfs', ARRAY['text', 'bigint', 'integer']);
SELECT function_returns('grail', 'bfs', ARRAY['text', 'bigint', 'integer'], 'setof record');
SELECT isnt_strict('grail', 'bfs', ARRAY['text', 'bigint', 'integer']);

SELECT is((SELECT proparallel FROM pg_proc WHERE oid = 'grail.reachable(text, bigint, bigint)'::regprocedure), 's',
          'reachable() is parallel safe');
SELECT is((SELECT proparallel FROM pg_proc WHERE oid = 'grail.create_graph(text, regclass, name, name, integer, boolean, boolean, text)'::regprocedure),
          'u', 'create_graph() is parallel unsafe');
SELECT is((SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE n.nspname = 'grail' AND p.proname NOT LIKE '\_%' AND obj_description(p.oid, 'pg_proc') IS NULL),
          0::bigint, 'every public function has a comment');

SELECT has_view('grail', 'graphs', 'the graphs view exists');
SELECT columns_are('grail', 'graphs', ARRAY['schema', 'name', 'relation', 'source_column', 'target_column', 'vertices', 'edges',
       'components', 'dag_vertices', 'dag_edges', 'labels', 'built_at', 'build_ms', 'read_ms', 'scc_ms', 'label_ms',
       'persist_ms', 'index_bytes', 'stale', 'owner', 'live', 'pending_changes', 'last_merge', 'merge_count',
       'last_background_merge', 'background_merge_count', 'filter', 'build', 'base_build', 'delta_changes', 'delta_bytes']);
SELECT table_privs_are('grail', 'graphs', 'public', ARRAY['SELECT']);
SELECT has_view('grail', 'activity', 'the activity view exists');
SELECT columns_are('grail', 'activity', ARRAY['schema', 'graph', 'relation', 'live', 'pending_changes', 'pid', 'command',
       'phase', 'done', 'total', 'unit', 'started', 'elapsed', 'phase_elapsed']);
SELECT table_privs_are('grail', 'activity', 'public', ARRAY['SELECT']);
-- Called by the view with the caller's rights: it filters by them itself.
SELECT function_privs_are('grail_internal', '_activity', ARRAY[]::text[], 'public', ARRAY['EXECUTE']);
SELECT is((SELECT array_agg(format_type(t, NULL) ORDER BY o)
           FROM pg_proc p, unnest(p.proallargtypes) WITH ORDINALITY a(t, o) WHERE p.oid = 'grail_internal._activity()'::regprocedure),
          ARRAY['integer', 'bigint', 'text', 'text', 'regclass', 'text', 'text', 'bigint', 'bigint', 'text',
                'timestamp with time zone', 'timestamp with time zone'], '_activity() columns');
-- The image lists name every graph of the database: for monitors, as cache_info().
SELECT function_privs_are('grail', 'gpu_service_images', ARRAY[]::text[], 'public', ARRAY[]::text[]);
SELECT function_privs_are('grail', 'gpu_service_images', ARRAY[]::text[], 'pg_monitor', ARRAY['EXECUTE']);
SELECT table_privs_are('grail', 'graph', 'public', ARRAY[]::text[]);
SELECT table_privs_are('grail', 'index_chunk', 'public', ARRAY[]::text[]);
SELECT function_privs_are('grail', '_mark_stale', ARRAY[]::text[], 'public', ARRAY[]::text[]);
SELECT is((SELECT proconfig FROM pg_proc WHERE oid = 'grail._mark_stale()'::regprocedure),
          ARRAY['search_path=pg_catalog, pg_temp'], 'the SECURITY DEFINER trigger function pins search_path');
SELECT is((SELECT attstorage FROM pg_attribute WHERE attrelid = 'grail.index_chunk'::regclass AND attname = 'data'),
          'e', 'index chunks are stored uncompressed');
SELECT is((SELECT extrelocatable FROM pg_extension WHERE extname = 'pg_grail'), false, 'the extension is not relocatable');

-- \df grail.* lists what users call: the internal functions are in grail_internal, except the two
-- trigger functions that users' triggers name (a dump restores them by that name).
SELECT is((SELECT array_agg(p.proname::text ORDER BY p.proname) FROM pg_proc p
           WHERE p.pronamespace = 'grail'::regnamespace AND p.proname LIKE '\_%'),
          ARRAY['_log_changes', '_mark_stale'], 'only the two trigger functions are internal functions in grail');
SELECT is((SELECT count(*) FROM pg_proc p WHERE p.pronamespace = 'grail'::regnamespace AND p.prorettype = 'trigger'::regtype),
          2::bigint, 'the trigger functions in grail are those two');
SELECT is((SELECT array_agg(DISTINCT p.proname::text ORDER BY p.proname::text) FROM pg_proc p
           WHERE p.pronamespace = 'grail'::regnamespace AND p.proname NOT LIKE '\_%'),
          ARRAY['alter_graph', 'ancestors', 'bfs', 'cache_counters', 'cache_info', 'chordless_cycle_counts',
                'chordless_cycles', 'create_graph', 'descendants', 'device_info', 'drop_graph', 'explain_graph',
                'find_cycle', 'gpu_service_images', 'merge_graph', 'path', 'reachable', 'refresh_graph',
                'save_chordless_cycles', 'scc_component', 'scc_components'],
          'grail holds the user functions');
SELECT is((SELECT count(*) FROM pg_proc p WHERE p.pronamespace = 'grail_internal'::regnamespace), 30::bigint,
          'grail_internal holds the other internal functions');
SELECT is((SELECT e.extname::text FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
           WHERE d.classid = 'pg_namespace'::regclass AND d.objid = 'grail_internal'::regnamespace AND d.deptype = 'e'),
          'pg_grail', 'grail_internal belongs to the extension');
SELECT schema_privs_are('grail_internal', 'public', ARRAY['USAGE']);
-- Their privileges moved with them: only _activity() (the view's) and _key_type() may run for anyone.
SELECT is((SELECT array_agg(p.proname::text ORDER BY p.proname) FROM pg_proc p
           WHERE p.pronamespace = 'grail_internal'::regnamespace AND has_function_privilege('public', p.oid, 'EXECUTE')),
          ARRAY['_activity', '_key_type', '_planner_support'], 'internal functions PUBLIC may run');
SELECT is((SELECT count(*) FROM pg_proc p WHERE p.prosupport = 'grail_internal._planner_support'::regproc),
          32::bigint, 'the support function is still attached');
SELECT is((SELECT array_agg(evtfoid::regprocedure::text ORDER BY evtname) FROM pg_event_trigger WHERE evtname LIKE 'grail\_%'),
          ARRAY['grail_internal._on_alter_object()', 'grail_internal._on_alter_table()', 'grail_internal._on_ddl_start()',
                'grail_internal._on_drop()', 'grail_internal._on_family_change()', 'grail_internal._on_grant()',
                'grail_internal._on_owner_change()', 'grail_internal._on_refresh()'],
          'the event triggers call the moved functions');
SELECT function_privs_are('grail_internal', '_watch', ARRAY['bigint'], 'public', ARRAY[]::text[]);
SELECT function_privs_are('grail_internal', '_on_drop', ARRAY[]::text[], 'public', ARRAY[]::text[]);
SELECT function_privs_are('grail_internal', '_refuse_unreadable_filters', ARRAY['text'], 'public', ARRAY[]::text[]);
-- A SECURITY DEFINER function runs with its owner's rights in every caller: none may take an
-- unqualified name from the caller's search_path.
SELECT is((SELECT array_agg(p.oid::regprocedure::text ORDER BY p.oid::regprocedure::text) FROM pg_proc p
           WHERE p.pronamespace IN ('grail'::regnamespace, 'grail_internal'::regnamespace) AND p.prosecdef
             AND p.proconfig IS DISTINCT FROM ARRAY['search_path=pg_catalog, pg_temp']),
          NULL::text[], 'every SECURITY DEFINER function pins search_path');
SELECT has_function('grail', 'explain_graph', ARRAY['text']);

SELECT * FROM finish();
ROLLBACK;
