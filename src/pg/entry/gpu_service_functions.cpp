// grail.device_info() and grail.gpu_service_images(): the GPU this backend would use, the GPU
// service (service/gpu_client.hpp) and the images it keeps resident.
#include "device.hpp"
#include "device_policy.hpp"

#include <cstdlib>
#include <string>

#include "service/gpu_client.hpp"
#include "boundary/guard.hpp"

extern "C" {
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

using namespace grail::pg;

/*
 * The GPU this backend would use, or why there is none; then the service, or why it does not run.
 */
GRAIL_FUNCTION(grail_device_info) {
	const grail::GpuProbe &probe = grail::process_gpu();
	std::string text = (probe.usable ? "GPU: " : "CPU only: ") + probe.description + "; " + service_summary();
	return guard([&] { return CStringGetTextDatum(text.c_str()); });
}

/*
 * One row per image of this database's graphs that the GPU service keeps resident, none when it does
 * not run. (Other databases' graphs are theirs to see.)
 */
GRAIL_FUNCTION(grail_gpu_service_images) {
	std::optional<ServiceReport> report = service_report();
	guard([&] {
		InitMaterializedSRF(fcinfo, 0);
		ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
		if (!report)
			return;
		for (const ServiceImage &image : report->images) {
			// <database>_<graph>_<build>_<uuid>.img: the service checked the name's form.
			const char *name = image.file.c_str();
			char *end;
			unsigned long database = std::strtoul(name, &end, 10);
			long long graph = std::strtoll(end + 1, &end, 10);
			long long build = std::strtoll(end + 1, &end, 10);
			if (Oid(database) != MyDatabaseId)
				continue;
			Datum values[7] = {Int64GetDatum(graph),
			                   Int64GetDatum(build),
			                   DirectFunctionCall1(uuid_in, CStringGetDatum(image.build_uuid.c_str())),
			                   Int64GetDatum(int64(image.host_bytes)),
			                   Int64GetDatum(int64(image.device_bytes)),
			                   TimestampTzGetDatum(time_t_to_timestamptz(pg_time_t(image.last_use))),
			                   Int64GetDatum(int64(image.requests))};
			bool nulls[7] = {false, false, false, false, false, false, false};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	});
	return (Datum)0;
}
