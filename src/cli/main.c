#include "util/i18n.h"

int main(int argc, char **argv)
{
        (void)argc;
        (void)argv;
        dmo_i18n_init();
        return 0;
}
