# the modt and mods families (mulmod, mulmod_shared, ...) in blocks of 256 threads: applied to generator/space.py in a copy of the tree (s39 run 4)
import re
p='generator/space.py'
s=open(p).read()
old='''    ipbs=(128,),
    lanes=(1,),
    multi_instance_blocks=(128,),
    shared_words=lambda v: v.block * (2 * v.words + 1) if mod_rows(v) else 0,'''
assert old in s
s=s.replace(old, old.replace("(128,)", "(256,)"))
open(p,'w').write(s)
