// Links the corpus into one program (with -fgpu-rdc: one device link).
int strings_main();
int symbols_main();
int hostinst_main();
int nokernel_value();
const char* nokernel_text();
const char* devvar_text();
int main() { return strings_main() + symbols_main() + hostinst_main() + nokernel_value() + nokernel_text()[0] + devvar_text()[0]; }
