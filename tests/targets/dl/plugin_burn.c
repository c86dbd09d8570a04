/* plugin_burn.c — the shared object tests/targets/dl_unload.c loads, burns CPU in, and unloads:
 * its CPU goes to the static plugin_spin (named from the module's .symtab). */
#include "burn.h"

unsigned long plugin_burn(double seconds);

BURN_FUNCTION(plugin_spin)

unsigned long plugin_burn(double seconds)
{
    return plugin_spin(seconds);
}
