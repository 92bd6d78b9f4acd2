-- A hostile schema for security tests (test/pgtap/security.sql, test/t/006_fuzz.pl): run as the
-- attacking role, pg_temp.plant_hostile_objects(schema) fills the attacker's schema with shadows
-- of pg_catalog's objects, for the exact argument types:
--   - every comparison, concatenation and arithmetic operator (=, <>, <, >, <=, >=, ||, +, -);
--   - the cross-type comparisons pg_catalog lacks, which resolve through casts (oid against the
--     reg* types, bigint against numeric): an exact match in the caller's schema wins over them;
--   - every plain function whose name the extension's SQL uses, and a few more.
-- Each shadow returns what pg_catalog's object returns, and first records in <schema>.elevated
-- the role that called it unless that is the attacker: any row there means that some SQL ran with
-- another role's rights under the attacker's search_path (the attack of security.sql). Returns the
-- number of shadows. Written with qualified names only, as the test itself sets hostile paths.
CREATE FUNCTION pg_temp.plant_hostile_objects(target name) RETURNS int
LANGUAGE plpgsql AS $plant$
DECLARE
	o record;
	f record;
	n int := 0;
BEGIN
	EXECUTE pg_catalog.format('CREATE TABLE %I.elevated (who name, what text)', target);
	EXECUTE pg_catalog.format('GRANT INSERT ON %I.elevated TO PUBLIC', target);
	EXECUTE pg_catalog.format(
		'CREATE FUNCTION %I.note(what text) RETURNS void LANGUAGE plpgsql AS $f$ BEGIN '
		'IF current_user OPERATOR(pg_catalog.<>) %L::pg_catalog.name THEN '
		'INSERT INTO %I.elevated VALUES (current_user, what); END IF; END $f$',
		target, current_user, target);
	FOR o IN
		SELECT p.oprname, p.oprleft::pg_catalog.regtype AS l, p.oprright::pg_catalog.regtype AS r,
		       p.oprresult::pg_catalog.regtype AS res
		FROM pg_catalog.pg_operator p
		JOIN pg_catalog.pg_type lt ON lt.oid OPERATOR(pg_catalog.=) p.oprleft
		JOIN pg_catalog.pg_type rt ON rt.oid OPERATOR(pg_catalog.=) p.oprright
		JOIN pg_catalog.pg_type xt ON xt.oid OPERATOR(pg_catalog.=) p.oprresult
		WHERE p.oprnamespace OPERATOR(pg_catalog.=) 'pg_catalog'::pg_catalog.regnamespace
		  AND p.oprname OPERATOR(pg_catalog.=) ANY ('{=,<>,<,>,<=,>=,||,+,-}'::pg_catalog.name[])
		  AND lt.typtype OPERATOR(pg_catalog.<>) 'p' AND rt.typtype OPERATOR(pg_catalog.<>) 'p'
		  AND xt.typtype OPERATOR(pg_catalog.<>) 'p'
		UNION ALL
		SELECT op, l::pg_catalog.regtype, r::pg_catalog.regtype, 'boolean'::pg_catalog.regtype
		FROM pg_catalog.unnest('{=,<>}'::pg_catalog.text[]) op,
		     (VALUES ('oid', 'regclass'), ('regclass', 'oid'), ('oid', 'regrole'), ('regrole', 'oid'),
		             ('oid', 'regnamespace'), ('regnamespace', 'oid'), ('oid', 'regproc'),
		             ('bigint', 'numeric')) t(l, r)
	LOOP
		n := n OPERATOR(pg_catalog.+) 1;
		EXECUTE pg_catalog.format(
			'CREATE FUNCTION %I.op_%s(a %s, b %s) RETURNS %s LANGUAGE plpgsql AS $f$ '
			'BEGIN PERFORM %I.note(%L); RETURN a::%s OPERATOR(pg_catalog.%s) b::%s; END $f$',
			target, n, o.l, o.r, o.res, target,
			o.oprname OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||) o.l OPERATOR(pg_catalog.||) ', '
			    OPERATOR(pg_catalog.||) o.r,
			CASE WHEN o.l::pg_catalog.text OPERATOR(pg_catalog.~) '^reg' THEN 'oid' ELSE o.l::pg_catalog.text END,
			o.oprname,
			CASE WHEN o.r::pg_catalog.text OPERATOR(pg_catalog.~) '^reg' THEN 'oid' ELSE o.r::pg_catalog.text END);
		EXECUTE pg_catalog.format('CREATE OPERATOR %I.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.op_%s)',
		                          target, o.oprname, o.l, o.r, target, n);
	END LOOP;
	FOR f IN
		SELECT p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid) AS args,
		       p.prorettype::pg_catalog.regtype AS res, p.pronargs
		FROM pg_catalog.pg_proc p
		WHERE p.pronamespace OPERATOR(pg_catalog.=) 'pg_catalog'::pg_catalog.regnamespace
		  AND p.prokind OPERATOR(pg_catalog.=) 'f' AND NOT p.proretset
		  AND p.provariadic OPERATOR(pg_catalog.=) 0
		  AND p.proname OPERATOR(pg_catalog.=) ANY ('{nextval,now,hashtext,pg_advisory_xact_lock,array_position,
		      has_column_privilege,has_schema_privilege,has_table_privilege,row_security_active,quote_ident,
		      quote_literal,current_schema,int8,int4,int2,text,oid,cardinality,parse_ident,lower,upper,
		      length,textcat,btrim,replace,to_regclass,regclass,array_length,array_append,array_cat,
		      pg_get_function_identity_arguments}'::pg_catalog.name[])
		  AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proargtypes::pg_catalog.oid[] OPERATOR(pg_catalog.||)
		                                                  p.prorettype) t
		                  JOIN pg_catalog.pg_type ty ON ty.oid OPERATOR(pg_catalog.=) t
		                  WHERE ty.typtype OPERATOR(pg_catalog.=) 'p')
	LOOP
		n := n OPERATOR(pg_catalog.+) 1;
		EXECUTE pg_catalog.format(
			'CREATE FUNCTION %I.%I(%s) RETURNS %s LANGUAGE plpgsql AS $f$ '
			'BEGIN PERFORM %I.note(%L); RETURN pg_catalog.%I(%s); END $f$',
			target, f.proname, f.args, f.res, target,
			f.proname OPERATOR(pg_catalog.||) '(' OPERATOR(pg_catalog.||) f.args OPERATOR(pg_catalog.||) ')',
			f.proname,
			(SELECT pg_catalog.string_agg('$' OPERATOR(pg_catalog.||) i, ', ')
			 FROM pg_catalog.generate_series(1, f.pronargs::pg_catalog.int4) i));
	END LOOP;
	RETURN n;
END
$plant$;
