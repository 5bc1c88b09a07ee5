// SPDX-License-Identifier: GPL-3.0-or-later
// A pipeline step without the CLI: w(theta) of a clustered mock against uniform randoms over the
// same box, through the library's one entry point, CorrelationJob, on the CPU. Prints a row per bin.
#include <tpacf/correlation_job.h>
#include <tpacf/errors.h>
#include <tpacf/mock.h>
#include <tpacf/version.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

int main() {
    try {
        const tpacf::Footprint box = tpacf::Footprint::box(150, 190, 0, 40);
        tpacf::MockParams mock;
        mock.count = 5000;
        mock.seed = 7;
        mock.footprint = box;

        tpacf::CorrelationParams params;
        params.data = std::make_shared<const tpacf::Catalog>(tpacf::generateClusteredMock(mock));
        params.randoms.push_back(std::make_shared<const tpacf::Catalog>(
            tpacf::generateUniformRandoms(10000, box, 8)));
        params.bins = tpacf::BinSpec::logPerDecade(1, 600, tpacf::AngleUnit::Arcminute, 4);
        params.estimator = tpacf::Estimator::LandySzalay;
        params.backend.name = "cpu";
        params.invocation = "examples/correlation_job";

        tpacf::CorrelationJob job(std::move(params));
        const tpacf::CorrelationResult result = job.run();

        std::printf("# libtpacf_core %s, %s on %s\n", std::string(tpacf::version()).c_str(),
                    result.backendName.c_str(), result.deviceDescription.c_str());
        std::printf("theta_arcmin,DD,w\n");
        int finite = 0;
        for (std::size_t bin = 0; bin < result.binCount(); ++bin) {
            std::printf("%.4g,%llu,%.6g\n", result.centres[bin],
                        static_cast<unsigned long long>(result.raw.dd[bin]), result.w[bin]);
            finite += std::isfinite(result.w[bin]) ? 1 : 0;
        }
        // A clustered mock has pairs at every scale of these bins: a w of NaN means no pairs.
        return finite == static_cast<int>(result.binCount()) ? 0 : 1;
    } catch (const tpacf::Error& error) {
        std::fprintf(stderr, "correlation_job: %s\n", error.what());
        return 2;
    }
}
