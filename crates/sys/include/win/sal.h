/* sal.h for etwsim-cc: Microsoft's source annotations, which gcc does not check: empty. */
#ifndef ETWSIM_WIN_SAL_H
#define ETWSIM_WIN_SAL_H
#define _In_
#define _In_opt_
#define _In_z_
#define _In_opt_z_
#define _Inout_
#define _Inout_opt_
#define _Inout_z_
#define _Out_
#define _Out_opt_
#define _Outptr_
#define _Outptr_opt_
#define _Outptr_result_maybenull_
#define _Outptr_result_buffer_(x)
#define _In_reads_(x)
#define _In_reads_opt_(x)
#define _In_reads_bytes_(x)
#define _In_reads_bytes_opt_(x)
#define _In_reads_z_(x)
#define _In_range_(a, b)
#define _Out_writes_(x)
#define _Out_writes_opt_(x)
#define _Out_writes_z_(x)
#define _Out_writes_bytes_(x)
#define _Out_writes_bytes_opt_(x)
#define _Out_writes_to_(a, b)
#define _Out_writes_bytes_to_(a, b)
#define _Out_writes_bytes_to_opt_(a, b)
#define _Inout_updates_(x)
#define _Inout_updates_bytes_(x)
#define _Field_size_(x)
#define _Field_size_bytes_(x)
#define _Field_size_opt_(x)
#define _Field_range_(a, b)
#define _Printf_format_string_
#define _Success_(x)
#define _Check_return_
#define _Must_inspect_result_
#define _Ret_maybenull_
#define _Ret_z_
#define _Null_terminated_
#define _NullNull_terminated_
#define _Frees_ptr_
#define _Frees_ptr_opt_
#define _Post_invalid_
#define _Reserved_
#define _Use_decl_annotations_
#define _Pre_
#define _Post_
#define _When_(a, b)
#define _Always_(x)
#define _Analysis_assume_(x)
#endif
