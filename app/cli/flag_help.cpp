// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli/flag_help.h"

#include "cli/plot_output.h"
#include "tpacf/backend.h"
#include "tpacf/catalog_formats.h"
#include "tpacf/correlation_job.h"
#include "tpacf/estimator.h"
#include "tpacf/jackknife.h"

#include <stdexcept>
#include <string>

namespace tpacf::cli {

namespace {

// Help text starts in this column; a longer "  --name VALUE" puts it on the next line.
constexpr std::size_t kHelpColumn = 21;

std::string placeholderValue(std::string_view key, const BackendRegistry& backends) {
    if (key == "backend-modules") {
        std::string names;
        for (const auto& module : backends.modules()) {
            // Appended piecewise: GCC 12 warns (-Wrestrict, a false alarm) on ", " + name.
            names += ", ";
            names += module->name();
        }
        return names;
    }
    if (key == "estimators")
        return describeEstimators(CorrelationParams{}.estimator);
    if (key == "max-jackknife-regions")
        return std::to_string(kMaxJackknifeRegions);
    if (key == "plot-availability")
        return plotsAvailable() ? "" : "; this build has none (built without Qt)";
    if (key == "catalog-formats")
        return describeCatalogFormats();
    throw std::logic_error("flag help names an unknown value {" + std::string(key) + "}");
}

} // namespace

std::string fillHelpText(std::string_view text, const BackendRegistry& backends) {
    std::string filled;
    while (true) {
        const auto open = text.find('{');
        const auto close = open == std::string_view::npos ? open : text.find('}', open);
        if (close == std::string_view::npos) {
            filled += text;
            return filled;
        }
        filled += text.substr(0, open);
        filled += placeholderValue(text.substr(open + 1, close - open - 1), backends);
        text.remove_prefix(close + 1);
    }
}

std::string flagHelp(const CommandFlags& table, const BackendRegistry& backends) {
    std::string help;
    for (const FlagGroup* group : table.groups) {
        if (!help.empty())
            help += '\n';
        if (!group->title.empty()) {
            help += group->title;
            help += ":\n";
        }
        for (const Flag* flag : group->flags) {
            // Appended piecewise: GCC 12 warns (-Wrestrict, a false alarm) on " " + text.
            std::string tag = "  ";
            tag += flag->name;
            if (!flag->metavar.empty()) {
                tag += ' ';
                tag += flag->metavar;
            }
            const bool ownLine = tag.size() + 2 > kHelpColumn;
            help += tag;
            if (ownLine)
                help += '\n';
            else
                help += std::string(kHelpColumn - tag.size(), ' ');
            const std::string text = fillHelpText(flag->help, backends);
            std::size_t start = 0;
            bool first = true;
            while (start <= text.size()) {
                const auto end = std::min(text.find('\n', start), text.size());
                if (!first || ownLine)
                    help += std::string(kHelpColumn, ' ');
                help += text.substr(start, end - start) + '\n';
                first = false;
                start = end + 1;
            }
        }
        if (!group->note.empty()) {
            std::string note = fillHelpText(group->note, backends);
            if (!note.ends_with('\n'))
                note += '\n';
            help += note;
        }
    }
    return help;
}

} // namespace tpacf::cli
