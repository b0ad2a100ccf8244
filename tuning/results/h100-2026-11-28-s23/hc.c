/* untracked session driver: host time to queue one fill, copy or small library call on CUDA (the division's steps), and the wall time per call; built against the runtime's internal headers */
#include <stdio.h>
#include <time.h>
#include "context.h"
#include "backend.h"
#include "kernel_call.h"
#include "midint.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(void){
  midint_context *ctx; if(midint_open(&ctx, MIDINT_BACKEND_CUDA, 0)!=MIDINT_OK){printf("open %s\n",midint_last_error(NULL));return 1;}
  void *a,*b,*r; size_t W=1u<<20;
  ctx->ops->alloc(ctx,W*4*2,&a); ctx->ops->alloc(ctx,W*4*2,&b); ctx->ops->alloc(ctx,W*4*4,&r);
  ctx->ops->fill(ctx,a,0,W*8,NULL); ctx->ops->fill(ctx,b,0,W*8,NULL); ctx->ops->synchronize(ctx,NULL);
  const int N=400; double t0,t1;
  #define T(name, stmt) do{ for(int i=0;i<20;i++){stmt;} ctx->ops->synchronize(ctx,NULL); t0=now(); for(int i=0;i<N;i++){stmt;} t1=now(); ctx->ops->synchronize(ctx,NULL); double t2=now(); printf("%-28s %7.2f us queue, %7.2f us wall per call\n",name,1e6*(t1-t0)/N,1e6*(t2-t0)/N);}while(0)
  T("fill 1025 words", ctx->ops->fill(ctx,r,0,1025*4,NULL));
  T("copy_words 1025 (1 row)", midint_copy_words(ctx,r,1025,0,a,1025,0,1025,1,NULL));
  T("copy_words 1 word", midint_copy_words(ctx,r,1025,5,a,1025,0,1,1,NULL));
  unsigned bitsl[]={1025*32, 8193*32, 65537*32, 262145*32};
  for(int k=0;k<4;k++){ unsigned bits=bitsl[k]; char nm[64];
    void *ab[]={r,a,b,NULL}; snprintf(nm,64,"add %u words",bits/32); T(nm, midint_kernel_call(ctx,MIDINT_OP_ADD,1,bits,ab,NULL,NULL));
    void *sb[]={r,a,NULL}; unsigned sc[]={37}; snprintf(nm,64,"shr %u words",bits/32); T(nm, midint_kernel_call(ctx,MIDINT_OP_SHR,1,bits,sb,sc,NULL));
    void *mb[]={r,a,b}; snprintf(nm,64,"mul %u words",bits/32); T(nm, midint_kernel_call(ctx,MIDINT_OP_MUL,1,bits,mb,NULL,NULL));
    printf("   (%s / %s / %s)\n", midint_selected_variant(ctx,MIDINT_OP_ADD,bits,1), midint_selected_variant(ctx,MIDINT_OP_SHR,bits,1), midint_selected_variant(ctx,MIDINT_OP_MUL,bits,1));
  }
  return 0;}
